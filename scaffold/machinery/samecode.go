package machinery

import (
	"go/scanner"
	"go/token"
	"path"
	"slices"
)

// sameCode says whether two versions of a file hold the same code: for a Go
// file, the same tokens, whatever the comments and layout (a doc comment a
// team adds to its types changes nothing the code written from them reads);
// for any other file, the same bytes.
func sameCode(file string, a, b []byte) bool {
	if path.Ext(file) != ".go" {
		return slices.Equal(a, b)
	}
	ta, oka := goTokens(a)
	tb, okb := goTokens(b)
	return oka && okb && slices.Equal(ta, tb)
}

// goToken is a token of Go source, without its position.
type goToken struct {
	tok token.Token
	lit string
}

// goTokens is src's tokens, comments left out; false when src does not
// scan as Go.
func goTokens(src []byte) ([]goToken, bool) {
	fset := token.NewFileSet()
	var s scanner.Scanner
	failed := false
	s.Init(fset.AddFile("", fset.Base(), len(src)), src, func(token.Position, string) { failed = true }, 0)
	var toks []goToken
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return toks, !failed
		}
		if tok == token.SEMICOLON {
			lit = "" // an inserted semicolon's literal is the newline
		}
		// A semicolon before a closing ) or } is optional: a list written
		// on one line or on several is the same code.
		if n := len(toks); n > 0 && toks[n-1].tok == token.SEMICOLON && (tok == token.RBRACE || tok == token.RPAREN) {
			toks = toks[:n-1]
		}
		toks = append(toks, goToken{tok, lit})
	}
}
