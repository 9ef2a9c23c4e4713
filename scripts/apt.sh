# Sourced by the scripts here: apt_install PACKAGE… installs Debian/Ubuntu
# packages when this user may (root, or password-less sudo), quietly, and
# returns non-zero when it cannot. A large install can fail once with
# "cannot access archive" on these machines, so it retries once.
apt_install() {
	local sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null && sudo -n true 2>/dev/null || return 1
		sudo="sudo -n"
	fi
	command -v apt-get >/dev/null || return 1
	local try
	for try in 1 2; do
		if $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; then
			return 0
		fi
		echo "$(basename "$0"): apt-get failed (try $try)" >&2
		sleep 2
	done
	return 1
}
