package cli

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
)

// The CLI reference, docs/cli.md, made from the table of commands for
// TestCLIReference (go test ./compiler/cli -update rewrites it).

// reference is the overview of docs/cli.md: every command's usage line
// and summary, the compile flags and the exit codes (referencePage puts
// it first).
func reference(cmds []*command) string {
	var b strings.Builder
	var compiling []string
	var compileFS *flag.FlagSet
	for _, cmd := range leaves(cmds) {
		fs, _ := cmd.flagSet(newCall(cmd, nil, nil, nil))
		fmt.Fprintf(&b, "%s\n", cmd.usageLine(fs))
		fmt.Fprintf(&b, "    %s\n", cmd.summary)
		if cmd.compile {
			compiling = append(compiling, cmd.name)
			compileFS = fs
		}
	}
	fmt.Fprintf(&b, "\ncompile flags, of %s:\n", strings.Join(compiling, ", "))
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	for _, name := range compileFlagNames {
		f := compileFS.Lookup(name)
		_, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(tw, "  %s\t%s\n", flagSyntax(f), usage)
	}
	tw.Flush()
	fmt.Fprintf(&b, "\n%s\n", exitCodes)
	return b.String()
}

// referencePage is the part of docs/cli.md made from the table of
// commands: the overview (reference), then a section per command (its
// usage line, what it does and its own flags), the compile flags and the
// exit codes, in Markdown. TestCLIReference compares it with the part of
// docs/cli.md between its two markers (go test ./compiler/cli -update
// rewrites it).
func referencePage(cmds []*command) string {
	var b strings.Builder
	b.WriteString("<!-- doc: no-run TestCLIReference compares it with the table of commands (go test ./compiler/cli -update rewrites it) -->\n```\n")
	b.WriteString(reference(cmds))
	b.WriteString("```\n")
	var compiling []string
	var compileFS *flag.FlagSet
	for _, cmd := range leaves(cmds) {
		fs, _ := cmd.flagSet(newCall(cmd, nil, nil, nil))
		fmt.Fprintf(&b, "\n### platc %s\n\n`%s`\n\n%s\n", cmd.name, cmd.usageLine(fs), markdownParagraphs(cmd.doc))
		var own []*flag.Flag
		fs.VisitAll(func(f *flag.Flag) {
			if !cmd.compile || !slices.Contains(compileFlagNames, f.Name) {
				own = append(own, f)
			}
		})
		if cmd.compile {
			compiling = append(compiling, cmd.name)
			compileFS = fs
		}
		if len(own) == 0 && !cmd.compile {
			continue
		}
		b.WriteString("\nFlags:\n\n")
		for _, f := range own {
			b.WriteString(flagItem(f))
		}
		if cmd.compile {
			b.WriteString("- the [compile flags](#compile-flags)\n")
		}
	}
	fmt.Fprintf(&b, "\n## Compile flags\n\nThe flags of %s:\n\n", strings.Join(compiling, ", "))
	for _, name := range compileFlagNames {
		b.WriteString(flagItem(compileFS.Lookup(name)))
	}
	fmt.Fprintf(&b, "\n## Exit codes\n\n%s\n", markdownParagraphs(strings.TrimPrefix(exitCodes, "Exit codes: ")))
	return b.String()
}

// flagItem is a flag as an item of a Markdown list: its syntax, its
// usage, and its default where it has one.
func flagItem(f *flag.Flag) string {
	_, usage := flag.UnquoteUsage(f)
	item := fmt.Sprintf("- `%s`: %s", flagSyntax(f), markdownParagraphs(usage))
	switch f.DefValue {
	case "", "false", "0", "[]":
	default:
		item += fmt.Sprintf(" (default `%s`)", f.DefValue)
	}
	return item + "\n"
}

// markdownParagraphs is a text of the table of commands in Markdown: its
// paragraphs as they are, < and * written so that Markdown shows them.
func markdownParagraphs(text string) string {
	return strings.NewReplacer("<", "&lt;", "*", `\*`).Replace(strings.TrimSpace(text))
}
