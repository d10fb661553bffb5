package adhoc

import (
	"errors"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/mechanisms"
)

func TestQuantile(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.5, 3}, {1, 5}, {0.125, 1.5}} {
		if got := quantile(xs, c.p); got != c.want {
			t.Errorf("quantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}

func TestEstimateFigure(t *testing.T) {
	s, d := chainSetup(t, 300)
	p, err := s.EstimateFigure(DPLSL, d, 1, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Title.Text, "ε = 1") || !strings.Contains(p.Title.Text, "5 releases") {
		t.Errorf("title %q does not state ε and the releases", p.Title.Text)
	}
	var pe *mechanisms.ParamError
	if _, err := s.EstimateFigure(DPLSL, d, 1, 1, 3); !errors.As(err, &pe) || pe.Param != "releases" {
		t.Errorf("one release: error %v, want a ParamError naming releases", err)
	}
	if _, err := s.EstimateFigure(DPLSL, d, -1, 5, 3); err == nil {
		t.Error("ε = −1 accepted")
	}
}
