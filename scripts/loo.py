# Leave-one-network-out decisions for the default's components, from the
# JSON of one or more validation-split suite runs:
#
#   python3 scripts/loo.py DIR1/suite.json DIR2/suite.json ...
#
# (dpmne experiment suite --validation --methods dpmne,VARIANT,... --out DIR).
# Each VARIANT is the default with one component off (or one option on); a
# later file's cell replaces an earlier one's. For each variant it prints
# the mean change of validation micro-F1 and k-means ACC, the default's
# wins, ties (within the larger std) and losses against it, and the
# leave-one-network-out decision: with each network held out, the default
# keeps the component only if its mean rank against the variant on the
# other networks is below 1.5 (1 a win, 1.5 a tie, 2 a loss).
import json, sys, statistics as st
allcells = []
for f in sys.argv[1:]:
    allcells += json.load(open(f))['cells']
d = {'cells': allcells}
cells = [c for c in d['cells'] if 'micro_f1' in c and c.get('micro_f1')]
def ms(stat):  # a score's mean and std: "mean"/"std", or "Mean"/"Std" in files written before the JSON keys were snake case
    return stat.get('mean', stat.get('Mean')), stat.get('std', stat.get('Std'))
score = {(c['data'], c['method']): (*ms(c['micro_f1']), *ms(c['acc'])) for c in cells}
nets = sorted({c['data'] for c in cells}, key=lambda x: [c['data'] for c in d['cells']].index(x))
methods = [m for m in dict.fromkeys(c['method'] for c in d['cells'])]
def rank(net, m):
    vals = sorted((score[(net, x)][0] for x in methods if (net, x) in score), reverse=True)
    v = score[(net, m)][0]
    return 1 + sum(1 for x in vals if x > v)
print('| network | ' + ' | '.join(methods) + ' |')
print('|---|' + '---|' * len(methods))
for n in nets:
    print('| %s | ' % n + ' | '.join('%.3f' % score[(n, m)][0] if (n, m) in score else '–' for m in methods) + ' |')
print()
print('Per variant: Δ = variant − dpmne; W/T/L of dpmne against the variant, a tie within the larger std. LOO: with each network held out, the other networks keep the default\'s setting if its mean rank against the variant is below 1.5 (1 a win, 1.5 a tie, 2 a loss), by micro-F1 and by k-means ACC apart; the setting keeps its place if a majority of folds keep it by either score.')
print()
print('| variant | mean Δ micro-F1 | mean Δ ACC | default W/T/L (micro-F1) | LOO folds keeping it: micro-F1 | LOO folds keeping it: ACC | the default\'s setting |')
print('|---|---|---|---|---|---|---|')
for v in methods:
    if v == 'dpmne':
        continue
    both = [n for n in nets if (n, v) in score and (n, 'dpmne') in score]
    if not both:
        continue
    deltas = {n: score[(n, v)][0] - score[(n, 'dpmne')][0] for n in both}
    def pr(n, k):  # dpmne's rank against the variant by metric k (0 micro-F1, 2 ACC): 1, 1.5 (tie within the larger std) or 2
        a, sa = score[(n, 'dpmne')][k], score[(n, 'dpmne')][k + 1]
        b, sb = score[(n, v)][k], score[(n, v)][k + 1]
        return 1.5 if abs(a - b) <= max(sa, sb) else (1 if a > b else 2)
    wtl = [0, 0, 0]
    for n in both:
        wtl[{1: 0, 1.5: 1, 2: 2}[pr(n, 0)]] += 1
    def loo(k):  # folds whose other networks keep the component, and the held-out networks of the others
        keep, switched = 0, []
        for h in both:
            rest = [pr(n, k) for n in both if n != h]
            if rest and st.mean(rest) < 1.5:
                keep += 1
            else:
                switched.append(h)
        return keep, switched
    kf, _ = loo(0)
    ka, _ = loo(2)
    dacc = st.mean(score[(n, v)][2] - score[(n, 'dpmne')][2] for n in both)
    verdict = 'keeps its place' if kf * 2 > len(both) or ka * 2 > len(both) else 'does not earn its place'
    print('| %s | %+.4f | %+.4f | %d/%d/%d | %d/%d | %d/%d | %s |' % (v, st.mean(deltas.values()), dacc, *wtl, kf, len(both), ka, len(both), verdict))
