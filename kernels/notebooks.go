package kernels

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Notebook is the part of an nbformat 4 notebook that the runner reads and checks.
type Notebook struct {
	Cells []Cell `json:"cells"`
	// Metadata holds the kernel spec and language info.
	Metadata struct {
		Kernelspec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
	} `json:"metadata"`
	NBFormat      int `json:"nbformat"`
	NBFormatMinor int `json:"nbformat_minor"`
}

// Cell is one notebook cell.
type Cell struct {
	ID             string          `json:"id"`
	CellType       string          `json:"cell_type"`
	Source         Text            `json:"source"`
	Outputs        []Output        `json:"outputs"`
	ExecutionCount json.RawMessage `json:"execution_count"`
}

// Output is one cell output.
type Output struct {
	OutputType string                     `json:"output_type"`
	Name       string                     `json:"name"` // stream name
	Text       Text                       `json:"text"`
	Data       map[string]json.RawMessage `json:"data"`
	EName      string                     `json:"ename"`
	EValue     string                     `json:"evalue"`
}

// Text is a multi-line string field that nbformat stores either as a string or as a list of lines.
type Text string

// UnmarshalJSON accepts both forms.
func (t *Text) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = Text(s)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return fmt.Errorf("notebook text is neither a string nor a list of strings: %w", err)
	}
	*t = Text(strings.Join(lines, ""))
	return nil
}

// ReadNotebook parses an nbformat 4 notebook.
func ReadNotebook(r io.Reader) (*Notebook, error) {
	var nb Notebook
	if err := json.NewDecoder(r).Decode(&nb); err != nil {
		return nil, fmt.Errorf("reading notebook: %w", err)
	}
	if nb.NBFormat != 4 {
		return nil, fmt.Errorf("reading notebook: nbformat %d, want 4", nb.NBFormat)
	}
	return &nb, nil
}

// ReadNotebookFile parses the nbformat 4 notebook at path; its errors name the path.
func ReadNotebookFile(path string) (*Notebook, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	nb, err := ReadNotebook(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return nb, nil
}

// Summary is what an executed notebook produced.
type Summary struct {
	CodeCells int
	Images    int      // outputs carrying image/png
	Errors    []string // one line per error output: "cell N: ename: first line of evalue"
}

// Summarize counts a notebook's code cells, inline PNG images and error outputs.
func Summarize(nb *Notebook) Summary {
	var s Summary
	for i, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		s.CodeCells++
		for _, o := range c.Outputs {
			if _, ok := o.Data["image/png"]; ok {
				s.Images++
			}
			if o.OutputType == "error" {
				msg, _, _ := strings.Cut(strings.TrimSpace(o.EValue), "\n")
				s.Errors = append(s.Errors, fmt.Sprintf("cell %d: %s: %s", i+1, o.EName, msg))
			}
		}
	}
	return s
}

// CheckExecuted returns an error describing every failed cell, or the absence of any inline image.
func CheckExecuted(nb *Notebook) error {
	s := Summarize(nb)
	var problems []string
	problems = append(problems, s.Errors...)
	if s.Images == 0 {
		problems = append(problems, "no inline image (image/png) in any output")
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// SetupCell is the first cell of every project notebook: it makes the notebook's Go module require this
// repository (whose path the kernel spec passes as DPRL_ROOT), so every import resolves to go.mod's
// pinned versions.
const SetupCell = "!*go mod edit -replace github.com/dprl-project/dprl=$DPRL_ROOT -require github.com/dprl-project/dprl@v0.0.0"

// KernelName is the kernel spec the project's notebooks name in their metadata.
const KernelName = "gonb-dprl"

// CheckSource checks a notebook as stored in git: nbformat 4.5 with cell ids, the project kernel, the setup
// cell first, and no outputs or execution counts (executed copies are build products).
func CheckSource(nb *Notebook) error {
	var problems []string
	if nb.NBFormatMinor < 5 {
		problems = append(problems, fmt.Sprintf("nbformat 4.%d, want 4.5 or later (cell ids)", nb.NBFormatMinor))
	}
	if nb.Metadata.Kernelspec.Name != KernelName {
		problems = append(problems, fmt.Sprintf("kernel %q, want %q", nb.Metadata.Kernelspec.Name, KernelName))
	}
	if len(nb.Cells) == 0 || strings.TrimSpace(string(nb.Cells[0].Source)) != SetupCell {
		problems = append(problems, fmt.Sprintf("the first cell must be the setup cell %q", SetupCell))
	}
	ids := map[string]bool{}
	for i, c := range nb.Cells {
		if c.ID == "" || ids[c.ID] {
			problems = append(problems, fmt.Sprintf("cell %d: missing or repeated id %q", i+1, c.ID))
		}
		ids[c.ID] = true
		if len(c.Outputs) > 0 {
			problems = append(problems, fmt.Sprintf("cell %d has outputs (strip them: make strip)", i+1))
		}
		if n := strings.TrimSpace(string(c.ExecutionCount)); n != "" && n != "null" {
			problems = append(problems, fmt.Sprintf("cell %d has execution count %s (strip it: make strip)", i+1, n))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}
