package display

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// TestWorkDir: in a kernel the folder is name in the kernel's folder, the same for every call (every cell);
// outside one every call gets a fresh, existing folder of its own under os.TempDir.
func TestWorkDir(t *testing.T) {
	kernel := t.TempDir()
	t.Setenv(protocol.GONB_TMP_DIR_ENV, kernel)
	if a, b := WorkDir("dprl-07"), WorkDir("dprl-07"); a != filepath.Join(kernel, "dprl-07") || b != a {
		t.Errorf("in a kernel: %q and %q, want %q twice", a, b, filepath.Join(kernel, "dprl-07"))
	}
	t.Setenv(protocol.GONB_TMP_DIR_ENV, "")
	t.Setenv("TMPDIR", t.TempDir())
	a, b := WorkDir("dprl-07"), WorkDir("dprl-07")
	for _, d := range []string{a, b} {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() || filepath.Dir(d) != os.TempDir() {
			t.Errorf("outside a kernel: %q is not a folder under %s (%v)", d, os.TempDir(), err)
		}
	}
	if a == b {
		t.Errorf("outside a kernel two calls share the folder %q", a)
	}
}
