package main

import (
	"slices"
	"testing"
)

func TestExpectedAnswers(t *testing.T) {
	m := &Manifest{
		Topics:  []TopicSpec{{Name: "t", Partitions: 2}},
		Offsets: map[string][2]int64{"t/0": {0, 5}, "t/1": {0, 0}},
		Records: []Rec{ // out of order by timestamp, listed out of offset order
			{Topic: "t", Partition: 0, Offset: 3, Timestamp: 50},
			{Topic: "t", Partition: 0, Offset: 0, Timestamp: 30},
			{Topic: "t", Partition: 0, Offset: 1, Timestamp: 10},
			{Topic: "t", Partition: 0, Offset: 2, Timestamp: 50},
			{Topic: "t", Partition: 0, Offset: 4, Timestamp: 20},
		},
	}
	queries := []int64{tsEarliest, tsLatest, tsMaxTimestamp, 0, 10, 11, 30, 31, 50, 51}
	want := []OffsetAnswer{
		{Query: tsEarliest, Offset: 0, Timestamp: -1},
		{Query: tsLatest, Offset: 5, Timestamp: -1},
		{Query: tsMaxTimestamp, Offset: 2, Timestamp: 50}, // the first of two equal maxima
		{Query: 0, Offset: 0, Timestamp: 30},
		{Query: 10, Offset: 0, Timestamp: 30}, // the first offset at or above, not the exact match
		{Query: 11, Offset: 0, Timestamp: 30},
		{Query: 30, Offset: 0, Timestamp: 30},
		{Query: 31, Offset: 2, Timestamp: 50},
		{Query: 50, Offset: 2, Timestamp: 50},
		{Query: 51, Offset: -1, Timestamp: -1},
	}
	if got := expectedAnswers(m, "t/0", queries); !slices.Equal(got, want) {
		t.Errorf("t/0:\n got %v\nwant %v", got, want)
	}
	wantEmpty := []OffsetAnswer{
		{Query: tsEarliest, Offset: 0, Timestamp: -1},
		{Query: tsLatest, Offset: 0, Timestamp: -1},
		{Query: tsMaxTimestamp, Offset: -1, Timestamp: -1},
		{Query: 7, Offset: -1, Timestamp: -1},
	}
	if got := expectedAnswers(m, "t/1", []int64{tsEarliest, tsLatest, tsMaxTimestamp, 7}); !slices.Equal(got, wantEmpty) {
		t.Errorf("empty t/1:\n got %v\nwant %v", got, wantEmpty)
	}
}

func TestTimestampQueries(t *testing.T) {
	m := &Manifest{
		Topics: []TopicSpec{{Name: "t", Partitions: 2}},
		Records: []Rec{
			{Topic: "t", Partition: 0, Offset: 0, Timestamp: 100},
			{Topic: "t", Partition: 0, Offset: 1, Timestamp: 90},
			{Topic: "t", Partition: 0, Offset: 2, Timestamp: 100},
			{Topic: "other", Partition: 0, Offset: 0, Timestamp: 5},
		},
	}
	q := timestampQueries(m)
	want := []int64{tsEarliest, tsLatest, tsMaxTimestamp, 0, 89 - 1000, 89, 90, 91, 99, 100, 101, 101 + 1000}
	if !slices.Equal(q["t/0"], want) {
		t.Errorf("t/0 queries %v, want %v", q["t/0"], want)
	}
	if len(q["t/1"]) != 6 || len(q) != 2 {
		t.Errorf("queries %v: want the specials and both ends for the empty t/1, nothing for unknown topics", q)
	}
}
