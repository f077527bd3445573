package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/platc/platc/compiler/diag"
)

// The help texts, made from the table of commands: the list of commands
// (platc help) and a command's help (platc help <command>, platc <command>
// -h); the CLI reference, docs/cli.md, is reference_test.go's.

const intro = "platc compiles a CUE platform spec into the Argo CD manifests of a GitOps repository."

const exitCodes = `Exit codes: 0 success; 1 problems found (failed checks, drift, a file platc
did not generate in the way); 2 usage error (an unknown command or flag, a
missing or malformed argument, an argument that names what the spec does not
have) or I/O error.`

func printCommands(w io.Writer, cmds []*command) {
	fmt.Fprintf(w, "%s\n\nUsage:\n\n\tplatc <command> [arguments]\n\nCommands:\n\n", intro)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, cmd := range cmds {
		fmt.Fprintf(tw, "\t%s\t%s\n", cmd.name, cmd.summary)
	}
	tw.Flush()
	fmt.Fprintf(w, `
Run platc help <command> (or platc <command> -h) for a command's usage and
flags, and platc completion bash|zsh|fish for shell completion.

%s
`, exitCodes)
}

// printHelp writes cmd's help: its usage line, what it does, its flags.
func (cmd *command) printHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", cmd.usageLine(fs), cmd.doc)
	var flags strings.Builder
	fs.SetOutput(&flags)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	if flags.Len() > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s", flags.String())
	}
}

// printGroupHelp writes the help of the group cmd: what it does and its
// subcommands.
func (cmd *command) printGroupHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: platc %s <subcommand>\n\n%s\n\nSubcommands:\n\n", cmd.name, cmd.doc)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, s := range cmd.subs {
		fmt.Fprintf(tw, "\t%s\t%s\n", s.short(), s.summary)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nRun platc help %s <subcommand> for a subcommand's usage and flags.\n", cmd.name)
}

// usageLine is how cmd is run: platc, its name, its flags, "[compile
// flags]" for those of the commands that compile, and its positional
// arguments.
func (cmd *command) usageLine(fs *flag.FlagSet) string {
	parts := []string{"platc", cmd.name}
	fs.VisitAll(func(f *flag.Flag) {
		if (cmd.compile && slices.Contains(compileFlagNames, f.Name)) || strings.Contains(" "+cmd.args+" ", " -"+f.Name+" ") {
			return
		}
		parts = append(parts, "["+flagSyntax(f)+"]")
	})
	if cmd.compile {
		parts = append(parts, "[compile flags]")
	}
	if cmd.args != "" {
		parts = append(parts, cmd.args)
	}
	return strings.Join(parts, " ")
}

// flagSyntax is how f is written: -name, -name value, or -name a|b|c for
// a flag of a few values.
func flagSyntax(f *flag.Flag) string {
	if w, ok := f.Value.(wordsFlag); ok {
		return "-" + f.Name + " " + strings.Join(w.words(), "|")
	}
	if name, _ := flag.UnquoteUsage(f); name != "" {
		return "-" + f.Name + " " + name
	}
	return "-" + f.Name
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func runHelp(c *call) int {
	cmds := table()
	if len(c.args) == 0 {
		printCommands(c.stdout, cmds)
		return ExitOK
	}
	cmd := lookup(cmds, c.args[0])
	if cmd == nil && len(c.args) == 1 {
		if c.args[0] == "messages" {
			printMessages(c.stdout)
			return ExitOK
		}
		if id := diag.Lookup(c.args[0]); id != diag.NoID {
			fmt.Fprint(c.stdout, diag.Help(id))
			return ExitOK
		}
	}
	if cmd == nil {
		if s := diag.Suggest(c.args[0], diag.Names()); s != "" && len(c.args) == 1 {
			return c.usagef("unknown command or message id %q (did you mean %q?): platc help lists the commands, platc help messages the ids", c.args[0], s)
		}
		return c.usagef("%s", known("command", c.args[0], names(cmds)))
	}
	if len(c.args) == 2 {
		if len(cmd.subs) == 0 {
			return c.usagef("platc %s has no subcommands", cmd.name)
		}
		var msg string
		if cmd, msg = cmd.lookupSub(c.args[1]); cmd == nil {
			return c.usagef("%s", msg)
		}
	} else if len(cmd.subs) > 0 {
		cmd.printGroupHelp(c.stdout)
		return ExitOK
	}
	fs, _ := cmd.flagSet(newCall(cmd, nil, nil, nil))
	cmd.printHelp(c.stdout, fs)
	return ExitOK
}

// printMessages lists the message ids: name, severity and summary.
func printMessages(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, id := range diag.IDs() {
		m := id.Info()
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", m.Name, m.Severity, m.Summary)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nplatc help <id> says more of one; docs/messages.md lists them all.")
}
