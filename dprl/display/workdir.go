package display

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// WorkDir is a folder of the running notebook's own for its working files (a sample, planning results), so
// that two notebooks, or two checkouts' test runs, never share one. In a GoNB kernel ($GONB_TMP_DIR set) it
// is name inside the kernel's folder: every cell of the kernel gets the same folder, another kernel another
// one, and GoNB removes it when the kernel shuts down. Elsewhere it is a fresh folder name-* under
// os.TempDir, made once per call (os.MkdirTemp); should that fail, the path name-PID there, whose first
// write then reports the error. Inside a kernel the folder is not created: the writers make it.
func WorkDir(name string) string {
	if d := os.Getenv(protocol.GONB_TMP_DIR_ENV); d != "" {
		return filepath.Join(d, name)
	}
	d, err := os.MkdirTemp("", name+"-")
	if err != nil {
		return filepath.Join(os.TempDir(), fmt.Sprintf("%s-%d", name, os.Getpid()))
	}
	return d
}
