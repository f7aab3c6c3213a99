package io.karst.interop.generations;

import static io.karst.interop.generations.Checks.require;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The records every topic of the suite holds: record i goes to partition i % PARTITIONS, so the
 * record at partition p, offset o of a topic that started empty is i = o * PARTITIONS + p.
 */
final class TestRecords {
    static final int PER_PARTITION = 10;

    private TestRecords() {}

    static String keyValueAt(int partition, long offset) {
        long i = offset * TopicAdmin.PARTITIONS + partition;
        return "k" + i + "=v" + i;
    }

    /**
     * Produces every record to an empty topic and checks each acknowledged offset. The first
     * record is acknowledged before the others are sent: a producer that cannot reach the broker
     * blocks each send up to max.block.ms, so it fails once, not once per record.
     */
    static void produce(Clients clients, String topic) throws Exception {
        KafkaProducer<String, String> producer = clients.producer();
        try {
            long deadline = System.nanoTime() + Clients.CALL_TIMEOUT.toNanos();
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < PER_PARTITION * TopicAdmin.PARTITIONS; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, i % TopicAdmin.PARTITIONS, "k" + i, "v" + i)));
                if (i == 0) acknowledged(acks.get(0), 0, deadline);
            }
            for (int i = 1; i < acks.size(); i++) acknowledged(acks.get(i), i, deadline);
        } finally {
            producer.close(Clients.CLOSE_TIMEOUT);
        }
    }

    private static void acknowledged(Future<RecordMetadata> ack, int i, long deadline) throws Exception {
        RecordMetadata at = ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        int partition = i % TopicAdmin.PARTITIONS;
        long offset = i / TopicAdmin.PARTITIONS;
        require(at.partition() == partition && at.offset() == offset,
            "record " + i + " acknowledged at " + at.partition() + "/" + at.offset() + ", expected " + partition + "/" + offset);
    }
}
