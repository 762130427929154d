package generators

// frameType is a type name with its label hashed once, for the built-in
// generators' frames (Source.Enter hashes on every call).
type frameType struct {
	name  string
	label uint64
}

func newType(name string) frameType { return frameType{name, hashString(name)} }

// enterT is Enter for a prepared type.
func (s *Source) enterT(t frameType) { s.enter(t.label, t.name) }

// depthT is Depth for a prepared type.
func (s *Source) depthT(t frameType) int { return s.Depth(t.name) }

// beginList opens a list frame and draws its structural size; each element
// then runs between elem and s.Leave(); endList closes the list frame.
func (s *Source) beginList(min, max int) int {
	s.enter(lblList, "")
	return s.Len(min, max)
}

func (s *Source) elem() { s.enter(lblElem, "") }

func (s *Source) endList() { s.Leave() }
