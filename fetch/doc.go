// Package fetch downloads dpmne's named data sets from their public sources
// into a data directory, checking every file against a SHA-256 sum recorded
// here, so that a user with a network gets byte-for-byte the files the
// project's tests were written against.
//
// Files are downloaded to a temporary name and renamed into place only once
// their checksum matches: an interrupted or corrupted download never leaves a
// file that the loaders would read. Files already present with the right
// checksum are not downloaded again.
package fetch
