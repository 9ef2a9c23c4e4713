// Package serve is dpmne's read-only similarity server: an http.Handler
// that answers nearest-neighbour queries on a fitted model's embedding and
// embeds unseen nodes from their features, with Prometheus metrics.
//
// # Endpoints
//
//	GET  /v1/nodes/{id}/neighbors?k=10&metric=cosine
//	POST /v1/embed
//	GET  /healthz
//	GET  /metrics
//
// Neighbours are found by an exact scan (package codes): metric cosine
// (the default) ranks the model's rows by cosine similarity (codes.Index,
// float32 unit rows; score = similarity, descending); metric hamming
// ranks the bi-DPMNE sign codes of the centred embedding (codes.Sign;
// score = Hamming distance, ascending). Ties go to the smaller row index.
// The query node itself is never among its neighbours. k defaults to 10
// and must lie in [1, Options.MaxK]; fewer neighbours are returned when
// the model has fewer other nodes.
//
//	{"id": "31336", "metric": "cosine", "k": 2,
//	 "neighbors": [{"id": "1129442", "score": 0.93}, {"id": "35", "score": 0.91}]}
//
// POST /v1/embed takes the features of a node the model has not seen, by
// view name, each either dense (an array of the view's feature width) or
// sparse ({"indices": [...], "values": [...]}, values defaulting to 1);
// views left out are the views the node lacks, and at least one is
// needed. A view without features of its own, whose autoencoder reads
// adjacency rows over the model's nodes, takes the node's edges there
// instead: "edges" maps the view to the ids of the model's nodes the node
// links to ({"edges": {"citation": ["31336", "35"]}}, each of weight 1;
// the request's "neighbors", its former name, is still read). The node is
// embedded by dpmne.Model.Embed (the closed-form
// ridge solution over its views) and its neighbours among the model's
// nodes are returned as above, the Hamming query coded with the training
// embedding's column means:
//
//	{"features": {"attribute": {"indices": [3, 17, 940]}}, "k": 5, "metric": "hamming"}
//	→ {"embedding": [...], "views": ["attribute"], "metric": "hamming", "k": 5, "neighbors": [...]}
//
// GET /healthz returns {"status": "ok"} with the model's size and its
// views' feature widths. GET /metrics is the Prometheus text exposition:
// dpmne_http_requests_total{endpoint, code, method},
// dpmne_http_request_duration_seconds{endpoint} (a histogram from 50 µs to
// about 1.6 s), dpmne_http_requests_in_flight,
// dpmne_http_connections_open, dpmne_http_connections_refused_total{answer}
// (over Options.MaxConns: answered 503, or none when too many are being
// answered already), and the Go runtime and process collectors.
//
// # Errors and limits
//
// Every error is a JSON object {"error": "..."} naming the field at fault,
// with status 400 for a bad k, metric, JSON body or feature (unknown view,
// wrong width, index out of range or repeated, a value outside float32),
// or a cosine query whose embedding is all zero (a node's, or the one
// its features give: it has no direction; a node whose embedding is all
// zero is never among the neighbours either),
// 404 for an unknown node id or path, 405 (with Allow) for a wrong method,
// and 413 for a body over Options.MaxBodyBytes (http.MaxBytesReader).
// Unknown JSON fields and trailing data are errors, so a misspelt field
// is not silently ignored, and so is a key given twice in one object (a
// field twice but for case, or a view twice in "features" or "edges"),
// which encoding/json would take, the last winning. User input never panics the server.
//
// Under load the server refuses work rather than queue it, and every
// refusal is a 503 with Retry-After: 1 and the same JSON error body
// (no other 5xx comes of load):
//
//   - a connection beyond Options.MaxConns open ones (default 1024; idle
//     ones count) is answered and closed by Server.Serve, unserved;
//   - a search (neighbours, embed) beyond Options.MaxInFlight running
//     ones (default 4 × GOMAXPROCS) is answered at once; /healthz and
//     /metrics are not counted, so they answer under load;
//   - a request body (/v1/embed) is read, at most Options.MaxBodyBytes,
//     before the request takes a search slot, so that clients sending
//     bodies slowly hold none; it must arrive within Options.BodyTimeout
//     (default 5 s) of the headers, a read deadline on the connection,
//     or is answered 408 and the connection closed;
//   - a search whose deadline, Options.RequestTimeout (default 30 s)
//     after its headers, passes before it is done stops and is answered
//     503: the handler's context carries the deadline, and the scan (codes.Index.CosineTopKContext,
//     codes.Codes.HammingTopKContext) checks it every 16,384 rows. A
//     search whose client has gone away stops the same way.
//
// 503 rather than 504 for a timeout: the server is no gateway, and a
// timeout is the same condition as the caps, too much work, which a
// client retries later. Serve bounds idle connections too
// (ReadHeaderTimeout, IdleTimeout).
//
// Nothing is written: the model, its index and its codes are built once
// by New and only read afterwards, so any number of requests run
// concurrently and get the answers they would get one at a time.
//
// Server.ListenAndServe serves on an address, with the limits of the
// server's Options, until its context is cancelled, then shuts down
// gracefully (http.Server.Shutdown); `dpmne serve` cancels that context
// on SIGINT and SIGTERM. Server.Serve documents what a connection may
// cost.
//
// # Fuzzing
//
// The /v1/embed handler is fuzzed (any body gets 200 or a JSON error,
// never a panic):
//
//	go test -run '^$' -fuzz '^FuzzEmbed$' -fuzztime 60s ./serve
package serve
