package embfile

// MaxLineBytes lets the tests lower the longest line ReadWord2Vec reads.
var MaxLineBytes = &maxLineBytes
