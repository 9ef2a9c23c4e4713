// Package embfile reads and writes node embeddings as files, in the two
// formats dpmne exchanges with other tools:
//
//   - a float .npy array, n×d (written as float32, read in any float
//     dtype, C or Fortran order), with its ids beside it in a text file,
//     one id per line in row order; by default the .npy path with its
//     extension replaced by .ids.txt (IDsPath: emb.npy → emb.ids.txt);
//   - word2vec text: a header line "n d", then one line per node, its id
//     and d numbers separated by spaces;
//   - CSV or TSV text: a header line "id,0,1,…,d−1", then one line per
//     node, its id (quoted as RFC 4180 quotes a field, where it must be)
//     and d numbers separated by commas or tabs.
//
// A path whose extension is .npy (in any case) is read as .npy, .csv and
// .tsv as CSV and TSV, any other as word2vec text; Format says which
// format an output path takes, refusing an extension that says none.
// WriteNPY, WriteWord2Vec and Write write each file atomically (package
// internal/atomicfile): a failed write leaves the file as it was;
// WriteText writes a text format to any writer (standard output).
// Read aligns an embedding with a network's nodes; ReadVectors returns it
// in its own row order. A .npy embedding without its ids file is refused
// (*MissingIDsError) unless the caller says that its rows are the nodes
// in order (ReadOptions.NodeOrder): nothing in the file says so, and rows
// scored against the wrong nodes give a wrong score without an error.
//
// Every reader refuses a NaN or ±Inf value (Check, *NonFiniteError),
// naming the file, the row (from 0, in file order), its id and the column
// (from 0), and for text the line: a NaN row is no vector, and scored as
// one it would pass silently as a zero row (cosine 0 against every node).
// An all-zero row is read as it is; package codes' cosine search never
// lists it as a neighbour and refuses it as a query, having no direction.
//
// Readers' errors name the file and, for text, the line ("emb.txt:3: …")
// and what was expected there; a line quoted in an error is cut to its
// first 60 bytes, since a binary file given for a text one has "lines" of
// kilobytes. ReadIDs and ReadWord2Vec skip a UTF-8 byte-order mark.
//
// # Fuzzing
//
// The word2vec reader is fuzzed. It loads each input from a file, so
// -fuzzminimizetime 100x keeps minimising from stalling the run, as in
// package multiplex:
//
//	go test -run '^$' -fuzz '^FuzzReadWord2Vec$' -fuzztime 60s -fuzzminimizetime 100x ./embfile
package embfile
