package timaker

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// APIError is an error the service answered in Response.Error. The client
// returns it inside an *exit.CodedError that carries its exit code and
// hint; errors.As finds it there.
type APIError struct {
	Action    string // v1/DescribeTrainingJob
	Code      string // ResourceNotFound.TrainingJob
	Message   string
	RequestID string // the service's id of the answer (else the one sent)
}

func (e *APIError) Error() string {
	s := "timaker " + e.Action + ": " + OneLine(e.Code, 100)
	if e.Message != "" {
		s += ": " + OneLine(e.Message, 500)
	}
	if e.RequestID != "" {
		s += " (request id " + OneLine(e.RequestID, 100) + ")"
	}
	return s
}

// ExitCode is easyai's exit code for the error (docs/exit-codes.md).
func (e *APIError) ExitCode() int {
	switch {
	case hasCodePrefix(e.Code, "ResourceNotFound"):
		return exit.NotFound
	case hasCodePrefix(e.Code, "InvalidParameter"),
		hasCodePrefix(e.Code, "MissingParameter"),
		hasCodePrefix(e.Code, "UnknownParameter"):
		return exit.Usage
	default:
		return exit.Error
	}
}

// hasCodePrefix says whether code is the family or one of its members:
// "InvalidParameter" or "InvalidParameter.X", not "InvalidParameterValue".
func hasCodePrefix(code, family string) bool {
	return code == family || strings.HasPrefix(code, family+".")
}

// coded wraps e with its exit code and, for refused credentials, a hint.
// now is the clock the signature was made with.
func (e *APIError) coded(now time.Time) error {
	var hint string
	switch {
	case e.Code == "AuthFailure.SignatureExpire", e.Code == "AuthFailure.SignatureFailure":
		hint = fmt.Sprintf("signatures are valid for %d minutes: this machine's clock reads %s; check it, and EASYAI_TIMAKER_SECRET_ID/EASYAI_TIMAKER_SECRET_KEY",
			int(signatureValidity/time.Minute), now.UTC().Format(time.RFC3339))
	case hasCodePrefix(e.Code, "AuthFailure"):
		hint = "the service refused the credentials: check EASYAI_TIMAKER_SECRET_ID and EASYAI_TIMAKER_SECRET_KEY"
	}
	return &exit.CodedError{Code: e.ExitCode(), Err: e, Hint: hint}
}

// MaybeCreatedError is a CreateTrainingJob whose answer never came after
// the request was sent: the service may have created (and started) the
// job. Submitting again could run it twice.
type MaybeCreatedError struct {
	Action    string
	RequestID string // the RequestId of the request sent
	Err       error  // why no answer came
}

func (e *MaybeCreatedError) Error() string {
	return fmt.Sprintf("timaker %s: no answer after the request was sent (%v): the job may have been created (request id %s)",
		e.Action, e.Err, e.RequestID)
}

func (e *MaybeCreatedError) Unwrap() error { return e.Err }

// maybeCreatedHint tells the user how to avoid running a job twice.
const maybeCreatedHint = "check the project's training jobs (on the timaker console, say) before submitting again"

// RetriesError is an idempotent action that failed on every attempt.
type RetriesError struct {
	Action   string
	Attempts int
	Err      error // the last attempt's error
}

func (e *RetriesError) Error() string {
	if e.Attempts == 1 {
		return fmt.Sprintf("timaker %s: %v", e.Action, e.Err)
	}
	return fmt.Sprintf("timaker %s failed %d times; the last time: %v", e.Action, e.Attempts, e.Err)
}

func (e *RetriesError) Unwrap() error { return e.Err }

// statusError is an answer whose HTTP status says the gateway or service
// failed (5xx) or asks us to slow down (429).
type statusError struct {
	Status int
	Body   []byte // its start, for the message
}

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d%s", e.Status, quotedStart(e.Body))
}

// badResponseError is an answer that is not timaker's JSON.
type badResponseError struct {
	Action string
	Status int
	Body   []byte
	Why    string
}

func (e *badResponseError) Error() string {
	return fmt.Sprintf("timaker %s: HTTP %d: %s%s", e.Action, e.Status, e.Why, quotedStart(e.Body))
}

// quotedBodyBytes is how much of an unexpected body an error quotes.
const quotedBodyBytes = 200

// quotedStart is ": " and the %q-quoted start of body, or "" when empty.
func quotedStart(body []byte) string {
	if len(body) == 0 {
		return ""
	}
	if len(body) > quotedBodyBytes {
		return fmt.Sprintf(": %q...", body[:quotedBodyBytes])
	}
	return fmt.Sprintf(": %q", body)
}

// OneLine makes text from the service safe to print on one line of a
// terminal: control and format characters (newlines, escapes, direction
// overrides) and bytes that are not UTF-8 become spaces; it is cut after
// max bytes.
func OneLine(s string, max int) string {
	var b strings.Builder
	for i, r := range s {
		if i >= max {
			b.WriteString("...")
			break
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}
