// Package eval implements the protocols used to evaluate dpmne embeddings,
// in the form that scikit-learn users expect: node classification (paper
// §4.1.3: L2-regularised logistic regression on the learned embeddings,
// scored by micro- and macro-F1) and node clustering (k-means on the
// embeddings, scored by clustering accuracy, NMI and ARI).
//
// # Protocol (Classify)
//
// Input: an n×d embedding matrix and one label per node, negative meaning
// unknown. Labels are compacted to the K ≥ 2 classes that occur.
//
//  1. Splits. Repeats (default 10) random splits of the labelled nodes, each
//     with round(TrainRatio·m) training nodes (TrainRatio default 0.5, m =
//     number of labelled nodes) and the rest as test nodes; optionally
//     stratified by class (largest-remainder rounding, see RandomSplits).
//     Split r is drawn from (Seed, r) alone.
//  2. Model selection on the training part only. The training part is cut
//     into Folds (default 5) stratified folds (KFold). For every fold, the
//     features are standardised with the mean and population standard
//     deviation of the other folds (as a scikit-learn Pipeline of
//     StandardScaler and LogisticRegression would), and a multinomial
//     logistic regression is fitted for every C of the grid Cs (default
//     {0.01, 0.1, 1, 10, 100}) in increasing order, each fit warm-started
//     from the previous C's solution; it is scored by accuracy on the held-out
//     fold. The C with the highest mean accuracy over folds is chosen, ties
//     going to the smaller C (stronger regularisation), as scikit-learn's
//     LogisticRegressionCV does with an increasing grid. When a class has
//     fewer training nodes than Folds (but at least 2), the folds are lowered
//     to that count (RepeatResult.Folds records it); a class with a single
//     training node is an error unless Folds is 1 (NoInnerCV), which skips
//     the inner CV and uses Cs[0].
//  3. Final fit and score. The features are standardised on the whole
//     training part, the model is refitted there with the chosen C, and
//     micro-F1 (= accuracy) and macro-F1 (unweighted mean of per-class F1
//     over the classes present in the test labels or predictions) are
//     computed on the test part.
//  4. Summary. Mean and sample standard deviation (divisor Repeats−1; 0 for
//     a single repeat) of both scores over the repeats. With Groups (say,
//     the views each node of a partial network is observed in), each
//     group's test nodes are also scored on their own: accuracy per repeat,
//     summarised over the repeats where the group had test nodes.
//
// Repeats run in parallel (Workers goroutines); every random draw depends
// only on Seed and the repeat index and every fit is serial, so the result is
// bit-for-bit independent of Workers.
//
// # Classifier (LogReg)
//
// LogReg minimises Σ_i −log softmax(x_iᵀW + B)_{y_i} + (1/(2C))·‖W‖² (bias
// not penalised; scikit-learn's LogisticRegression(C=C) with the multinomial
// loss) with gonum's L-BFGS (More–Thuente line search) on the exact
// objective and gradient. The objective is divided by n during optimisation,
// so Tol is a tolerance on the per-sample gradient (infinity norm) as in
// scikit-learn's lbfgs. Both matrix products use blas64.Gemm on contiguous
// buffers and an evaluation allocates nothing.
//
// On Cora-sized data (n = 2708, d = 128, 7 classes; 10 repeats × 5 folds × 5
// values of C) the whole protocol needs about 3–7 s of CPU time, depending on
// how many L-BFGS iterations the weakly regularised fits take; see
// BenchmarkClassify.
//
// # Protocol (Cluster)
//
// Input: as for Classify. With K the number of classes among the labelled
// nodes (K ≥ 2):
//
//  1. Rows. All n rows are clustered (unlabelled nodes too), either raw or
//     L2-normalised (ClusterOptions.Normalize: each row divided by its
//     Euclidean norm, a zero row left as it is), which makes k-means group
//     rows by direction (cosine similarity). Which of the two a table reports
//     is the caller's choice; raw k-means can be poor on embeddings whose
//     row norms vary a lot (norms that track degree or frequency rather than
//     class, as in many skip-gram and matrix-factorisation embeddings), since
//     squared Euclidean distance then splits near from far rows before it
//     splits directions. Reporting both is the safe default.
//  2. Clustering. Repeats (default 10) runs of KMeans with K clusters, each
//     with its own seed derived from (Seed, repeat) and Restarts (default 10)
//     k-means++ restarts, keeping the restart of lowest inertia.
//  3. Scores, on the labelled nodes only: ClusteringAccuracy (best
//     one-to-one matching of clusters to classes, by Hungarian on the
//     contingency table), NMI (arithmetic-mean normalisation, scikit-learn's
//     default) and ARI (Hubert and Arabie).
//  4. Summary. Mean and sample standard deviation over the repeats, as for
//     Classify.
//
// All repeats × restarts runs share one pool of Workers goroutines; each run
// is serial and draws only from its own seed, so the result is bit-for-bit
// independent of Workers.
//
// # K-means (KMeans)
//
// KMeans is scikit-learn's KMeans(init="k-means++", algorithm="lloyd"):
// greedy k-means++ seeding (2 + ⌊ln K⌋ candidates per centre), Lloyd
// iterations until a fixed point, a relative decrease of the inertia of at
// most Tol (default 1e-6; scikit-learn instead thresholds the centre shift)
// or MaxIter (default 300), and the best of Restarts runs. A cluster left
// empty is re-seeded with the row farthest from its centre. The nearest
// centres come from one blas64.Gemm (‖c‖² − 2·x·c) per iteration. On
// Cora-sized data (n = 2708, d = 128, K = 7) the 10 restarts take about
// 0.2 s on 2 cores; see BenchmarkKMeans.
//
// # Protocol (Retrieval)
//
// RetrievalCosine and RetrievalHamming score an embedding, or binary codes,
// for similarity search by label agreement, as in hashing papers:
//
//  1. Queries and database. Every labelled node is a query; its database
//     is every other labelled node (unlabelled nodes take no part). A
//     database node is relevant when its label equals the query's.
//  2. Ranking. The database is sorted by decreasing cosine similarity of
//     the float rows, or by increasing Hamming distance of the codes; ties
//     are broken by the smaller node index, so the scores are
//     deterministic (no averaging over tied orders: on codes, whose
//     distances are small integers, ties are common and the index order is
//     as arbitrary as any other).
//  3. Scores. precision@k: the fraction of relevant nodes among the first
//     k (k lowered to the database size when larger), averaged over the
//     queries. Average precision: (1/R) Σ_r P@r·rel(r) over the ranks r of
//     the whole ranking, R the number of relevant nodes; mAP averages it
//     over the queries with R > 0.
//
// The work is exact: m labelled nodes cost m² distances (one blas64.Gemm
// per block of 64 queries for cosine, m·w popcounts per query for codes of
// w words) and a sort per query (a counting sort for Hamming distances),
// spread over Workers goroutines; the averages are summed in query order,
// so the result does not depend on Workers. On Cora (m = 2708, d = 128)
// that is well under a second.
package eval
