//go:build unix

package session

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an advisory lock on path (created if missing): exclusive for a charge, shared for a read.
// It waits while another process holds a conflicting lock; the returned function releases it. The lock
// goes with the process: a process killed while holding it releases it.
func lockFile(path string, exclusive bool) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
