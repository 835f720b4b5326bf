// Package printers writes what commands show: tables of rows (aligned with a
// header on a terminal, tab-separated without one), JSON and YAML documents,
// and durations and ages the way kubectl prints them.
package printers

import (
	"bytes"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// Table collects rows and prints them all at once, so columns line up.
type Table struct {
	w       io.Writer
	aligned bool
	header  []string
	rows    [][]string
}

// NewTable returns a table with the given column headers. aligned (a
// terminal) prints a header and columns padded to line up; otherwise each row
// is one line of tab-separated cells and there is no header, for cut and awk.
func NewTable(w io.Writer, aligned bool, header ...string) *Table {
	return &Table{w: w, aligned: aligned, header: header}
}

// AddRow adds a row; an empty cell is printed as "-" so cells never vanish
// when a line is split on whitespace. Cells hold text from the cluster:
// every control character (tabs, newlines, escapes) is printed as a space.
func (t *Table) AddRow(cells ...string) {
	row := make([]string, len(cells))
	for i, c := range cells {
		c = jobmodel.OneLine(c)
		if c == "" {
			c = "-"
		}
		row[i] = c
	}
	t.rows = append(t.rows, row)
}

// Len is the number of rows added.
func (t *Table) Len() int { return len(t.rows) }

// Render writes the table.
func (t *Table) Render() error {
	if !t.aligned {
		var b strings.Builder
		for _, row := range t.rows {
			b.WriteString(strings.Join(row, "\t"))
			b.WriteByte('\n')
		}
		_, err := io.WriteString(t.w, b.String())
		return err
	}
	var buf bytes.Buffer
	table := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{ShowHeader: tw.Off, ShowFooter: tw.Off, BetweenRows: tw.Off, BetweenColumns: tw.Off},
				Lines:      tw.Lines{ShowTop: tw.Off, ShowBottom: tw.Off, ShowHeaderLine: tw.Off, ShowFooterLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithPadding(tw.Padding{Left: tw.Empty, Right: columnGap, Overwrite: true}),
	)
	table.Header(t.header)
	if err := table.Bulk(t.rows); err != nil {
		return err
	}
	if err := table.Render(); err != nil {
		return err
	}
	// The last column is padded to its width too: lines must not end in blanks.
	var b strings.Builder
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line == "" {
			continue
		}
		b.WriteString(strings.TrimRight(line, " \n"))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(t.w, b.String())
	return err
}

// columnGap separates aligned columns, as in kubectl's tables.
const columnGap = "   "
