//go:build race

package baseline

// raceEnabled is true under the race detector, where Hogwild workers
// serialise their updates (see SkipGram.Workers).
const raceEnabled = true
