// Package tree parses HTML with golang.org/x/net/html and checks that a
// rendered tree parses back to the same shape.
package tree

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/net/html"
)

// RoundTrip parses doc, renders the tree and parses the rendering. It
// returns an error when a parse or the rendering fails or the two trees'
// shapes differ, and panics when the rendering does not parse.
func RoundTrip(doc []byte) error {
	n, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := html.Render(&out, n); err != nil {
		return err
	}
	again, err := html.Parse(&out)
	if err != nil {
		panic(fmt.Sprintf("rendered tree does not parse: %v", err))
	}
	if a, b := Shape(n), Shape(again); a != b {
		return fmt.Errorf("shape changed on a round trip: %.64s -> %.64s", a, b)
	}
	return nil
}

// Shape writes a tree's element names, nested in parentheses.
func Shape(n *html.Node) string {
	var b strings.Builder
	shape(&b, n, 0)
	return b.String()
}

func shape(b *strings.Builder, n *html.Node, depth int) {
	if depth > 64 {
		b.WriteString("…")
		return
	}
	switch n.Type {
	case html.ElementNode:
		b.WriteString(n.Data)
	case html.TextNode:
		b.WriteByte('t')
	case html.CommentNode:
		b.WriteByte('c')
	}
	if n.FirstChild == nil {
		return
	}
	b.WriteByte('(')
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		shape(b, c, depth+1)
	}
	b.WriteByte(')')
}
