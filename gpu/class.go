package gpu

import (
	"strings"
	"unicode"
)

// Class is the family of a GPU as far as atma's device choice cares.
type Class string

// The classes, from most to least preferred.
const (
	ClassH200  Class = "H200"
	ClassH100  Class = "H100"
	ClassA100  Class = "A100"
	ClassOther Class = "other"
)

// rank orders the classes for PreferCUDA: higher is better.
func (c Class) rank() int {
	switch c {
	case ClassH200:
		return 3
	case ClassH100:
		return 2
	case ClassA100:
		return 1
	default:
		return 0
	}
}

// Classify maps a device name as NVML reports it ("NVIDIA H100 80GB HBM3",
// "NVIDIA A100-SXM4-80GB") to its Class. It matches whole words of the name, split at
// anything that is not a letter or digit, so "NVIDIA RTX A1000" is not an A100. Grace Hopper
// superchips ("NVIDIA GH200 480GB") and the export variants (H800, A800) are ClassOther.
func Classify(name string) Class {
	words := strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	best := ClassOther
	for _, w := range words {
		var c Class
		switch w {
		case "H200":
			c = ClassH200
		case "H100":
			c = ClassH100
		case "A100":
			c = ClassA100
		default:
			continue
		}
		if c.rank() > best.rank() {
			best = c
		}
	}
	return best
}
