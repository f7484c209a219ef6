// Command blueprint finds the electrical and fire-alarm symbols on
// construction drawings and counts them, in this process, with the
// service's own engine: the same document reader, legend reading,
// detectors, thresholds and counting as a job of the API, so its counts
// are the API's for the same file. It is for people and scripts that have
// a drawing on disk and no server to send it to.
//
//	blueprint takeoff plan.pdf            # the take-off as a table
//	blueprint takeoff --csv a.pdf b.pdf   # one CSV, a file column first
//	blueprint explain plan.pdf            # how the drawing was read
//	blueprint help takeoff
//
// docs/cli.md describes every command, flag and output.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed (a file that cannot be read, say)
	exitUsage   = 2 // the command line is wrong
)

// env is what a command sees of its process: arguments aside, the
// environment and the standard streams. Tests substitute all of it.
type env struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
	// terminal says whether stderr is a terminal: progress is drawn only
	// there.
	terminal bool
	// libraryDirs lists where to look for ONNX Runtime when no flag or
	// variable names it (nil: nowhere).
	libraryDirs func() []string
}

// command is one subcommand.
type command struct {
	name, short string
	// usage is the synopsis and the description printed by help.
	usage string
	// flags defines the command's flags on fs and returns the function
	// that runs it with the positional arguments, called once fs parsed.
	flags func(fs *flag.FlagSet, e env) func(ctx context.Context, args []string) error
}

// commands lists the subcommands in the order help shows them.
func commands() []command {
	return []command{takeoffCommand(), explainCommand()}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{getenv: os.Getenv, stdout: os.Stdout, stderr: os.Stderr, terminal: isTerminal(os.Stderr), libraryDirs: libraryDirs})
	stop()
	os.Exit(code)
}

// isTerminal reports whether f is a character device (a terminal), not a
// file or a pipe.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

const mainUsage = `Blueprint finds the electrical and fire-alarm symbols on construction drawings
(PDF, PNG, JPEG or WebP) and counts them, in this process, exactly as the
service does for a job.

Usage:

	blueprint <command> [flags] [arguments]

The commands are:

%s
Use "blueprint help <command>" for more about a command.

Exit status: 0 when the command did what it was asked, 1 when it failed
(a file that cannot be read, ONNX Runtime missing), 2 for a wrong command line.
See docs/cli.md.
`

// usageError is a wrong command line: its message, then a pointer to the
// help, and exit status 2.
type usageError struct {
	cmd string // "" for the blueprint command itself
	msg string
}

func (e *usageError) Error() string {
	help := "blueprint help"
	if e.cmd != "" {
		help += " " + e.cmd
	}
	return fmt.Sprintf("%s (see %q)", e.msg, help)
}

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, e env) int {
	err := dispatch(ctx, args, e)
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintln(e.stderr, "blueprint:", err)
		return exitUsage
	default:
		fmt.Fprintln(e.stderr, "blueprint:", oneLine(err.Error()))
		return exitFailure
	}
}

// dispatch runs the subcommand args name.
func dispatch(ctx context.Context, args []string, e env) error {
	if len(args) == 0 {
		printMain(e.stderr)
		return &usageError{msg: "no command given"}
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return help(args[1:], e)
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		fs.SetOutput(io.Discard) // run reports errors, help prints usage
		runCmd := c.flags(fs, e)
		pos, err := parseArgs(fs, args[1:])
		if errors.Is(err, flag.ErrHelp) {
			printCommand(e.stdout, c, e)
			return nil
		}
		if err != nil {
			return &usageError{cmd: c.name, msg: c.name + ": " + err.Error()}
		}
		return runCmd(ctx, pos)
	}
	return &usageError{msg: fmt.Sprintf("unknown command %q", args[0])}
}

// help prints the usage of blueprint or of one command on stdout.
func help(args []string, e env) error {
	if len(args) == 0 {
		printMain(e.stdout)
		return nil
	}
	if len(args) > 1 {
		return &usageError{msg: "help takes one command name"}
	}
	for _, c := range commands() {
		if c.name == args[0] {
			printCommand(e.stdout, c, e)
			return nil
		}
	}
	return &usageError{msg: fmt.Sprintf("unknown help topic %q", args[0])}
}

func printMain(w io.Writer) {
	var list string
	for _, c := range commands() {
		list += fmt.Sprintf("\t%-10s %s\n", c.name, c.short)
	}
	fmt.Fprintf(w, mainUsage, list)
}

func printCommand(w io.Writer, c command, e env) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.flags(fs, e)
	fmt.Fprint(w, c.usage)
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// parseArgs parses fs's flags wherever they stand among the arguments
// (`blueprint takeoff plan.pdf --json`, as people type them) and returns
// the others in order; "--" ends the flags.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// oneLine keeps an error on one line: errors are one line each.
func oneLine(s string) string {
	out := []rune(s)
	for i, r := range out {
		if r == '\n' || r == '\r' {
			out[i] = ' '
		}
	}
	return string(out)
}
