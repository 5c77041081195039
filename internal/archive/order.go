package archive

import (
	"cmp"
	"strings"
)

// ComparePaths orders entry paths as a reader reads them: folder by folder, and within a name
// numbers by value ("page2" before "page10"), letters without regard to case.
func ComparePaths(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		// A folder's pages come after the files beside it only when their names say so: compare
		// element by element, and a shorter path (a file) before a longer one at the same name.
		if c := CompareNatural(as[i], bs[i]); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(len(as), len(bs)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// CompareNatural compares two names with their runs of digits taken as numbers.
func CompareNatural(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		ra, rb := strings.ToLower(a[:1]), strings.ToLower(b[:1])
		if c := strings.Compare(ra, rb); c != 0 {
			return c
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
