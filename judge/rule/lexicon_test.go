package rule

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// quantitiesWhole is quantities as it was before beforeWindow: every before* pattern
// matched on all of the text before the number. It is the oracle the linear quantities
// must agree with.
func quantitiesWhole(t *text) []quantity {
	return quantitiesBefore(t, func(low string, end int) string { return low[:end] })
}

// afterAgeWhole is afterAge as it was, with an anchor per branch.
var afterAgeWhole = regexp.MustCompile(`^[\s-]*(years?|yrs?)[\s-]*old\b|^-year-old\b`)

// checkQuantities compares quantities with quantitiesWhole on s, and afterAge with
// afterAgeWhole on the text after every number of s.
func checkQuantities(t *testing.T, s string) []quantity {
	t.Helper()
	tx := newText(s)
	got, want := quantities(tx), quantitiesWhole(tx)
	if !slices.Equal(got, want) {
		t.Fatalf("quantities(%q)\n = %+v\nwant %+v", s, got, want)
	}
	for _, m := range numberRE.FindAllStringIndex(tx.low, -1) {
		after := tx.low[m[1]:]
		if g, w := afterAge.MatchString(after), afterAgeWhole.MatchString(after); g != w {
			t.Fatalf("afterAge.MatchString(%q) = %v, afterAgeWhole: %v", after, g, w)
		}
	}
	return got
}

// quantityTexts are texts whose numbers the before* patterns decide, with the white space
// and fillers beforeWindow must reach past, and near misses that only the byte before a
// keyword (its \b) tells apart.
var quantityTexts = []string{
	"",
	"I'm 34.",
	"I am \t\n 34 and my salary is   about \t 62,000.",
	"My income is\taround\n\n\n55k a year, and I earn 3,000 euros a month.",
	"I turned 40 last week; I'm turning 41 soon. Aged 7, I moved.",
	"I'm a parent of \r\n 3 and have two kids.",
	"I worked there for 5 years, over 3 years ago, in the last 2 years.",
	"dimage 30, xturned 40, teenage 12, passage 5, pim 9, overturn 3, paidx 4, unpaid 5",
	"salary is about around 5, salary isabout 6, make  about7, makes about 8",
	"earn  about  about 9 dollars, earn around\fabout 10, earnabout 11",
	// numberRE takes one space before a number into its match, so "around 8" leaves no
	// white space for beforeMoney's \s+; two spaces do.
	"xsalary is around  5, zincome is around\n\n6, xparent of 7, salary is around  8",
	"aged\f\f\f\f\f\f\f\f\f\f\f\f\f\f\f\f\f\f\f\f30, salary is\f\f\f\f\f\f\f\f\f\f\f\f\faround\f\f\f\f\f\f\f\f\f\f\f\f9",
	"I'm 1.75 m tall, 180 cm, 3 km away, 25 minutes by bike, 2 siblings, 4-year-old, 5 years old.",
	"twenty-five years old, thirty two kids, ninety nine minutes",
	"\xff\xfe 12 \x80aged 13",
}

func TestQuantitiesWindow(t *testing.T) {
	filler := "Work was busy and the weather was grey.   "
	texts := slices.Clone(quantityTexts)
	for _, n := range []int{10, 100, 1000} {
		texts = append(texts, strings.Repeat(filler, n)+strings.Join(quantityTexts, " "))
		texts = append(texts, strings.Repeat(strings.Join(quantityTexts, " ")+strings.Repeat(" ", n), 3))
	}
	// Random texts from the patterns' own pieces, with runs of white space.
	pieces := []string{"i'm", "i am", "im", "aged", "turned", "age", "age is", "turn", "turning", "parent of", "for", "in", "over", "of", "the last", "past",
		"earn", "earns", "make", "makes", "salary is", "paid", "income is", "about", "around", "x", "-", "'", "€", "$", "£",
		"3", "12", "1.8", "62,000", "5k", "seven", "forty-two", "years", "old", "ago", "cm", "m", "kids", "sisters", "minutes", "km", "euros", "thousand"}
	spaces := []string{"", " ", "  ", "\t", "\n", "\f", "\r", " \t\n ", strings.Repeat("\f", 20), strings.Repeat(" \t\r\n", 10)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(20) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			b.WriteString(spaces[rng.IntN(len(spaces))])
		}
		texts = append(texts, b.String())
	}
	found := 0
	for _, s := range texts {
		found += len(checkQuantities(t, s))
	}
	if found < 1000 {
		t.Errorf("the texts hold only %d quantities: the comparison reads too little", found)
	}
}

// FuzzQuantities checks quantities against quantitiesWhole on any text.
func FuzzQuantities(f *testing.F) {
	for _, s := range quantityTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkQuantities(t, s)
	})
}
