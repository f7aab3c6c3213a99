package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func main() {
	kafkaAddr := flag.String("kafka", "", "Apache Kafka's bootstrap address, host:port")
	karstAddr := flag.String("karst", "", "Karst's bootstrap address, host:port")
	knownPath := flag.String("known", "known-differences.txt", "the allow-list of accepted differences")
	only := flag.String("only", "", "run only the APIs whose name matches this regular expression")
	aclMode := flag.Bool("acl", false, "run the ACL cases (acl.go): -kafka and -karst are super-user listeners, -kafka-sasl and -karst-sasl alice's SASL/PLAIN listeners")
	kafkaSASL := flag.String("kafka-sasl", "", "with -acl: Apache Kafka's SASL_PLAINTEXT listener, host:port")
	karstSASL := flag.String("karst-sasl", "", "with -acl: Karst's SASL_PLAINTEXT listener, host:port")
	flag.Parse()
	if *kafkaAddr == "" || *karstAddr == "" {
		fmt.Fprintln(os.Stderr, "usage: differential -kafka HOST:PORT -karst HOST:PORT [-known FILE] [-only REGEXP]")
		os.Exit(2)
	}
	known, err := loadKnownDifferences(*knownPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "differential:", err)
		os.Exit(2)
	}
	filter := regexp.MustCompile(*only)
	start := time.Now()
	suite := "interop-differential"
	var r *result
	if *aclMode {
		suite = "acl-differential"
		r, err = runACL(*kafkaAddr, *kafkaSASL, *karstAddr, *karstSASL, filter)
	} else {
		r, err = run(*kafkaAddr, *karstAddr, filter)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "differential:", err)
		fmt.Printf("%s: 0 passed, 1 failed\n", suite)
		os.Exit(1)
	}
	unlisted := r.report(os.Stdout, known, *only == "")
	fmt.Printf("differential: wall time %.1f s\n", time.Since(start).Seconds())
	fmt.Printf("%s: %d passed, %d failed\n", suite, r.scenarios-unlisted, unlisted)
	if unlisted > 0 {
		os.Exit(1)
	}
}

// served is one API key Karst lists in ApiVersions, with its version range.
type served struct {
	key      int16
	min, max int16
}

// result is what a run found: every scenario run and every difference.
type result struct {
	scenarios  int
	apiVersion int
	skipped    []string
	byScenario map[string][]difference // scenario prefix -> its differences
	order      []string
}

func run(kafkaAddr, karstAddr string, filter *regexp.Regexp) (*result, error) {
	apis, err := servedAPIs(karstAddr)
	if err != nil {
		return nil, fmt.Errorf("asking Karst for its API versions: %w", err)
	}
	kafka, karst := newSession(kafkaAddr), newSession(karstAddr)
	if err := both(kafka, karst, setup); err != nil {
		return nil, err
	}
	fKafka, fKarst := newFlattener(), newFlattener()
	r := &result{byScenario: map[string][]difference{}}
	for _, api := range apis {
		name := kmsg.NameForKey(api.key)
		if !filter.MatchString(name) {
			continue
		}
		scenarios := apiScenarios[api.key]
		if len(scenarios) == 0 {
			scenarios = []scenario{defaultRequestScenario(api.key)}
		}
		for v := api.min; v <= api.max; v++ {
			if v > kmsg.RequestForKey(api.key).MaxVersion() {
				r.skipped = append(r.skipped, fmt.Sprintf("%s v%d (kmsg encodes up to v%d)", name, v, kmsg.RequestForKey(api.key).MaxVersion()))
				continue
			}
			r.apiVersion++
			for _, sc := range scenarios {
				if !sc.applies(v) {
					continue
				}
				_ = both(kafka, karst, func(s *session) error { sc.run(s, v); return nil })
				prefix := fmt.Sprintf("%s v%d %s", name, v, sc.name)
				r.scenarios++
				r.order = append(r.order, prefix)
				r.byScenario[prefix] = compareSteps(prefix, kafka.takeSteps(), karst.takeSteps(), fKafka, fKarst)
			}
		}
	}
	return r, nil
}

// both runs fn against the two brokers at once and returns the first error.
func both(kafka, karst *session, fn func(*session) error) error {
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range []*session{kafka, karst} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(s)
		}()
	}
	wg.Wait()
	if errs[0] != nil {
		return fmt.Errorf("kafka: %w", errs[0])
	}
	if errs[1] != nil {
		return fmt.Errorf("karst: %w", errs[1])
	}
	return nil
}

func servedAPIs(addr string) ([]served, error) {
	c := newBrokerConn(addr)
	defer c.close()
	req := kmsg.NewPtrApiVersionsRequest()
	req.SetVersion(3)
	req.ClientSoftwareName, req.ClientSoftwareVersion = "karst-differential", "1"
	resp, err := c.roundTrip(req)
	if err != nil {
		return nil, err
	}
	av := resp.(*kmsg.ApiVersionsResponse)
	var apis []served
	for _, k := range av.ApiKeys {
		apis = append(apis, served{key: k.ApiKey, min: k.MinVersion, max: k.MaxVersion})
	}
	sort.Slice(apis, func(i, j int) bool { return apis[i].key < apis[j].key })
	return apis, nil
}

// report prints the differences and the counts and returns how many scenarios have a
// difference the allow-list does not accept.
func (r *result) report(w *os.File, known []*knownDifference, fullRun bool) int {
	same, allowed, unlisted, diffCount, allowedDiffs := 0, 0, 0, 0, 0
	var lines []string
	for _, prefix := range r.order {
		diffs := r.byScenario[prefix]
		if len(diffs) == 0 {
			same++
			continue
		}
		all := true
		for i := range diffs {
			d := &diffs[i]
			diffCount++
			if d.known = match(known, d.key); d.known != nil {
				d.known.matched++
				allowedDiffs++
				lines = append(lines, fmt.Sprintf("known  %s: kafka=%s karst=%s (line %d)", d.key, d.kafka, d.karst, d.known.line))
			} else {
				all = false
				lines = append(lines, fmt.Sprintf("DIFF   %s: kafka=%s karst=%s", d.key, d.kafka, d.karst))
			}
		}
		if all {
			allowed++
		} else {
			unlisted++
		}
	}
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	for _, s := range r.skipped {
		fmt.Fprintln(w, "skipped", s)
	}
	if fullRun {
		for _, k := range known {
			if k.matched == 0 {
				fmt.Fprintf(w, "unused allow-list entry, line %d: %s\n", k.line, k.pattern)
			}
		}
	}
	fmt.Fprintf(w, "differential: %d scenarios over %d API versions: %d same, %d different (%d all known, %d with unlisted differences)\n",
		r.scenarios, r.apiVersion, same, allowed+unlisted, allowed, unlisted)
	fmt.Fprintf(w, "differential: %d differences, %d known, %d unlisted\n", diffCount, allowedDiffs, diffCount-allowedDiffs)
	return unlisted
}
