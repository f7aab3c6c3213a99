package group

// State is a classic group's state, named as Kafka names it.
type State int8

// The classic group states.
const (
	Empty State = iota
	PreparingRebalance
	CompletingRebalance
	Stable
	Dead
)

var stateNames = [...]string{"Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "Unknown"
}
