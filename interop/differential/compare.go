package main

import (
	"errors"
	"fmt"
)

// difference is one path whose normalized value differs between the brokers.
type difference struct {
	key          string // "API vN scenario/step path", what the allow-list matches
	kafka, karst string
	known        *knownDifference
}

// outcome names how a request ended when it got no decodable response.
func outcome(err error) string {
	switch {
	case err == nil:
		return "response"
	case errors.Is(err, errClosed):
		return "connection closed"
	case errors.Is(err, errNoResponse):
		return "no response"
	}
	return "error: " + err.Error()
}

// compareSteps compares the outcomes of one scenario on both brokers.
func compareSteps(prefix string, kafka, karst []step, fKafka, fKarst *flattener) []difference {
	var diffs []difference
	if len(kafka) != len(karst) {
		diffs = append(diffs, difference{key: prefix + "/- <steps>", kafka: fmt.Sprint(len(kafka)), karst: fmt.Sprint(len(karst))})
	}
	for i := 0; i < len(kafka) && i < len(karst); i++ {
		a, b := kafka[i], karst[i]
		stepPrefix := prefix + "/" + a.label + " "
		if oa, ob := outcome(a.err), outcome(b.err); oa != ob || a.err != nil {
			if oa != ob {
				diffs = append(diffs, difference{key: stepPrefix + "<outcome>", kafka: oa, karst: ob})
			}
			continue
		}
		fa, fb := fKafka.flatten(a.resp), fKarst.flatten(b.resp)
		for _, path := range sortedPaths(fa, fb) {
			va, oka := fa[path]
			vb, okb := fb[path]
			if !oka {
				va = "<absent>"
			}
			if !okb {
				vb = "<absent>"
			}
			if va != vb {
				diffs = append(diffs, difference{key: stepPrefix + path, kafka: va, karst: vb})
			}
		}
	}
	return diffs
}
