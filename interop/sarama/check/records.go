package check

import (
	"fmt"

	"github.com/IBM/sarama"
)

// Partitions is the partition count of every topic the checks use.
const Partitions = 2

// perPartition records go to each partition: record i goes to partition i % Partitions, so the
// record at partition p, offset o of a topic that started empty is i = o*Partitions + p.
const perPartition = 10

func keyValueAt(partition int32, offset int64) string {
	i := offset*Partitions + int64(partition)
	return fmt.Sprintf("k%d=v%d", i, i)
}

// produce sends every record to an empty topic with an idempotent acks=all producer and checks
// each acknowledged partition and offset.
func produce(cfg *sarama.Config, bootstrap, topic string) error {
	producer, err := sarama.NewSyncProducer([]string{bootstrap}, cfg)
	if err != nil {
		return fmt.Errorf("new producer: %w", err)
	}
	defer producer.Close()
	for i := 0; i < perPartition*Partitions; i++ {
		want := int32(i % Partitions)
		partition, offset, err := producer.SendMessage(&sarama.ProducerMessage{
			Topic:     topic,
			Partition: want,
			Key:       sarama.StringEncoder(fmt.Sprintf("k%d", i)),
			Value:     sarama.StringEncoder(fmt.Sprintf("v%d", i)),
		})
		if err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if partition != want || offset != int64(i/Partitions) {
			return fmt.Errorf("record %d acknowledged at %d/%d, expected %d/%d", i, partition, offset, want, i/Partitions)
		}
	}
	return nil
}
