// Package tisign signs requests to Ti-Gateway, the gateway in front of
// timaker's HTTP API: a variant of TC3-HMAC-SHA256 in which the body is not
// hashed and the signed headers are content-type, host and
// x-tc-timestamp (their list written with a trailing ';').
//
// The algorithm was reconstructed from public adapter code; its test
// vector is in tisign_test.go.
package tisign

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"
)

// Algorithm is the name Authorization headers start with.
const Algorithm = "TC3-HMAC-SHA256"

// SignedHeaders is the list of signed headers, as the gateway expects it.
const SignedHeaders = "content-type;host;x-tc-timestamp;"

// Validity is how long a signature is accepted after its timestamp.
const Validity = 60 * time.Minute

// Input is what a signature covers.
type Input struct {
	Method      string
	ContentType string
	Host        string
	Service     string
	Timestamp   int64
}

// Scope is DATE/SERVICE/tc3_request, the date in UTC.
func (in Input) Scope() string {
	return in.date() + "/" + in.Service + "/tc3_request"
}

func (in Input) date() string {
	return time.Unix(in.Timestamp, 0).UTC().Format("2006-01-02")
}

// CanonicalRequest is the text whose hash is signed.
func (in Input) CanonicalRequest() string {
	empty := sha256.Sum256(nil)
	return in.Method + "\n/\n\n" +
		"content-type:" + in.ContentType + "\n" +
		"host:" + in.Host + "\n" +
		"x-tc-timestamp:" + strconv.FormatInt(in.Timestamp, 10) + "\n" +
		"\n" + SignedHeaders + "\n" + hex.EncodeToString(empty[:])
}

// StringToSign is what the derived key signs.
func (in Input) StringToSign() string {
	h := sha256.Sum256([]byte(in.CanonicalRequest()))
	return Algorithm + "\n" + strconv.FormatInt(in.Timestamp, 10) + "\n" + in.Scope() + "\n" + hex.EncodeToString(h[:])
}

// Signature is the hex signature of in with secretKey.
func Signature(in Input, secretKey string) string {
	k := mac([]byte("TC3"+secretKey), in.date())
	k = mac(k, in.Service)
	k = mac(k, "tc3_request")
	return hex.EncodeToString(mac(k, in.StringToSign()))
}

// Authorization is the Authorization header of in, signed by the secret
// id and key.
func Authorization(in Input, secretID, secretKey string) string {
	return fmt.Sprintf("%s Credential=%s/%s, SignedHeaders=%s, Signature=%s",
		Algorithm, secretID, in.Scope(), SignedHeaders, Signature(in, secretKey))
}

func mac(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}
