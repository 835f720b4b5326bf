package trainjob

// MaxPending is maxPending, for the tests of package trainjob_test.
const MaxPending = maxPending
