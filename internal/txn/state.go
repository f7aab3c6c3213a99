package txn

// State is a transaction's state, numbered as Kafka's TransactionState
// (the number is what __transaction_state stores).
type State int8

// Kafka's transaction states.
const (
	Empty             State = 0
	Ongoing           State = 1
	PrepareCommit     State = 2
	PrepareAbort      State = 3
	CompleteCommit    State = 4
	CompleteAbort     State = 5
	Dead              State = 6
	PrepareEpochFence State = 7
)

var stateNames = [...]string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort",
	"CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

// String is Kafka's name for the state, as DescribeTransactions and
// ListTransactions report it.
func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "Unknown"
}

// StateByName returns the state Kafka calls name.
func StateByName(name string) (State, bool) {
	for i, n := range stateNames {
		if n == name {
			return State(i), true
		}
	}
	return 0, false
}

func (s State) valid() bool { return s >= Empty && s <= PrepareEpochFence }

// completed: no transaction is open (a new one may begin).
func (s State) completed() bool { return s == Empty || s == CompleteCommit || s == CompleteAbort }

// preparing: markers are being written.
func (s State) preparing() bool { return s == PrepareCommit || s == PrepareAbort }

// TopicPartition names a partition of a transaction.
type TopicPartition struct {
	Topic     string
	Partition int32
}
