package accounting

import (
	"errors"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/mechanisms"
)

func TestExplorerStepGrid(t *testing.T) {
	got := ExplorerStepGrid(1000, 4)
	want := []int{1, 10, 100, 1000}
	if len(got) != len(want) {
		t.Fatalf("grid %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("grid %v, want %v", got, want)
		}
	}
	if g := ExplorerStepGrid(3, 9); g[0] != 1 || g[len(g)-1] != 3 || len(g) != 3 {
		t.Errorf("short grid %v, want [1 2 3]", g)
	}
}

func TestExplorerFigure(t *testing.T) {
	p, err := ExplorerFigure(1, 1e-5, 0.01, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Title.Text, "ε = 1") || !strings.Contains(p.Title.Text, "T = 100") {
		t.Errorf("title %q does not state the target", p.Title.Text)
	}
	// A different target gives a different noise in the title.
	p2, err := ExplorerFigure(4, 1e-5, 0.01, 100)
	if err != nil {
		t.Fatal(err)
	}
	if p2.Title.Text == p.Title.Text {
		t.Errorf("ε = 1 and ε = 4 give the same title %q", p.Title.Text)
	}
	var pe *mechanisms.ParamError
	if _, err := ExplorerFigure(0, 1e-5, 0.01, 100); !errors.As(err, &pe) || pe.Param != "eps" {
		t.Errorf("eps = 0: error %v, want a ParamError naming eps", err)
	}
	if _, err := ExplorerFigure(1, 1e-5, 1.5, 100); !errors.As(err, &pe) || pe.Param != "q" {
		t.Errorf("q = 1.5: error %v, want a ParamError naming q", err)
	}
}
