package transfer

// DefaultMaxBytes is the bound of a download into dir when none is given:
// the free space of dir's file system, less a margin (a tenth of it, at
// most 1 GiB) so the download does not fill it; -1 (no bound) when the free
// space is unknown.
func DefaultMaxBytes(dir string) int64 {
	free, ok := freeSpace(dir)
	if !ok {
		return -1
	}
	return max(free-min(free/10, 1<<30), 0)
}
