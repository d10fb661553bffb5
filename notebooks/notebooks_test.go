package notebooks

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/dprl-project/dprl/kernels"
)

// The notebooks, by number prefix: DEVELOPERS.md and the tour name them in this order.
var prefixes = map[string]string{
	"00": "tour", "01": "mechanisms and accounting", "02": "Balle et al. 2016", "03": "Xie et al. 2019",
	"04": "Wang & Hegde 2019", "05": "Sharma et al.", "06": "Seo & Yang 2020", "07": "ad-hoc analysis",
}

var name = regexp.MustCompile(`^(\d\d)-[a-z0-9]+(-[a-z0-9]+)*\.ipynb$`)

// TestNotebooksAreStoredStripped checks every notebook in this folder: a known number prefix, a lower-case
// hyphenated name, nbformat 4.5 with cell ids, the project kernel, the setup cell first, and no outputs.
func TestNotebooksAreStoredStripped(t *testing.T) {
	paths, err := filepath.Glob("*.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no notebooks found")
	}
	seen := map[string]string{}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			m := name.FindStringSubmatch(p)
			if m == nil {
				t.Fatalf("name %q is not NN-lower-case-words.ipynb", p)
			}
			if _, ok := prefixes[m[1]]; !ok {
				t.Errorf("prefix %s is not one of the project's notebook numbers", m[1])
			}
			if other, dup := seen[m[1]]; dup {
				t.Errorf("prefix %s is used by %s too", m[1], other)
			}
			seen[m[1]] = p
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			nb, err := kernels.ReadNotebook(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := kernels.CheckSource(nb); err != nil {
				t.Error(err)
			}
		})
	}
	if _, ok := seen["00"]; !ok {
		t.Error("the tour (00-tour.ipynb) is missing")
	}
}
