package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/versions"
)

// choice is a flag whose value is one of a few words: versions'
// -format, which is its output's and not a report's.
type choice struct {
	value   string
	allowed []string
}

func (c *choice) String() string { return c.value }

func (c *choice) Set(s string) error {
	if !slices.Contains(c.allowed, s) {
		return fmt.Errorf("use %s%s", diag.OrNone(c.allowed), diag.DidYouMean(s, c.allowed))
	}
	c.value = s
	return nil
}

func (c *choice) words() []string { return c.allowed }

// versionsFlags are the flags of platc versions, and what runs it: it
// prints which version of each chart every environment runs.
func versionsFlags(fs *flag.FlagSet) func(*call) int {
	format := &choice{value: "text", allowed: []string{"text", "json", "markdown"}}
	fs.Var(format, "format", "print the matrix as `format`: text (a table), json (one document) or markdown (a table for a pull request's comment)")
	return func(c *call) int {
		repo, code := c.compileOnly()
		if repo == nil {
			return code
		}
		res := repo.res
		m := versions.NewMatrix(res.Spec, res.Info, res.Stacks)
		write := map[string]func(io.Writer) error{"text": m.Text, "markdown": m.Markdown, "json": func(w io.Writer) error { return writeJSON(w, m) }}[format.value]
		if err := write(c.stdout); err != nil {
			return c.rep.failf(diag.IO, "writing the matrix: %v", err)
		}
		return ExitOK
	}
}
