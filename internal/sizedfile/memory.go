package sizedfile

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync"
)

// MachineMemory returns MemTotal from /proc/meminfo in bytes, or 0 (no
// limit) where it cannot be read. It is read once.
var MachineMemory = sync.OnceValue(func() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
})

// FormatBytes prints a size in GiB, MiB or KiB, or in bytes below.
func FormatBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return strconv.FormatFloat(float64(b)/(1<<30), 'f', 1, 64) + " GiB"
	case b >= 1<<20:
		return strconv.FormatFloat(float64(b)/(1<<20), 'f', 0, 64) + " MiB"
	case b >= 1<<10:
		return strconv.FormatFloat(float64(b)/(1<<10), 'f', 0, 64) + " KiB"
	}
	return strconv.FormatInt(b, 10) + " B"
}
