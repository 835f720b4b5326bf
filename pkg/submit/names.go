package submit

import (
	"crypto/rand"
	"math/big"
)

var (
	adjectives = []string{"amber", "brave", "calm", "clever", "eager", "fast", "gentle", "happy", "keen", "lucid", "merry", "nimble", "proud", "quiet", "rapid", "sharp", "steady", "swift", "tidy", "vivid", "warm", "wise", "young", "zesty"}
	nouns      = []string{"otter", "falcon", "badger", "heron", "lynx", "panda", "raven", "tiger", "whale", "yak", "bison", "crane", "dingo", "eagle", "gecko", "ibis", "koala", "lemur", "moose", "newt", "orca", "puffin", "quokka", "seal"}
)

const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// GenerateName returns a readable, very likely unique job name such as
// "tf-brave-otter-x7k2".
func GenerateName(kind string) string {
	pick := func(n int) int {
		i, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
		if err != nil {
			panic(err)
		}
		return int(i.Int64())
	}
	suffix := make([]byte, 4)
	for i := range suffix {
		suffix[i] = suffixAlphabet[pick(len(suffixAlphabet))]
	}
	return kind + "-" + adjectives[pick(len(adjectives))] + "-" + nouns[pick(len(nouns))] + "-" + string(suffix)
}
