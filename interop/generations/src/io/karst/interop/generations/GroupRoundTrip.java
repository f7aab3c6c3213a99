package io.karst.interop.generations;

import static io.karst.interop.generations.Checks.require;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntToLongFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A classic consumer group on a topic holding TestRecords: a first member reads every record and
 * commits a different offset (with metadata) per partition; a fresh member of the same group,
 * with auto.offset.reset=none, must start exactly at those offsets and read the commits back.
 */
final class GroupRoundTrip {
    private static final Duration POLL_DEADLINE = Duration.ofSeconds(30);

    private final Clients clients;
    private final String topic;
    private final String group;
    private final Map<TopicPartition, OffsetAndMetadata> commits = new HashMap<>();

    GroupRoundTrip(Clients clients, String topic, String group) {
        this.clients = clients;
        this.topic = topic;
        this.group = group;
        for (int p = 0; p < TopicAdmin.PARTITIONS; p++) {
            commits.put(new TopicPartition(topic, p), new OffsetAndMetadata(4 + 2 * p, "generations-" + p));
        }
    }

    Map<TopicPartition, OffsetAndMetadata> commits() { return commits; }

    void consumeAndCommit() {
        asMember("earliest", consumer -> {
            Set<String> expected = recordsFrom(partition -> 0);
            require(readUntil(consumer, expected).equals(expected), "did not read every produced record");
            require(consumer.assignment().equals(commits.keySet()), "assignment " + consumer.assignment());
            consumer.commitSync(commits, Clients.CALL_TIMEOUT);
        });
    }

    void resumeFromCommits() {
        asMember("none", consumer -> {
            Set<String> expected = recordsFrom(partition -> commits.get(new TopicPartition(topic, partition)).offset());
            Set<String> read = readUntil(consumer, expected);
            require(read.equals(expected), "resumed at " + read + ", expected " + expected);
            Map<TopicPartition, OffsetAndMetadata> fetched = consumer.committed(commits.keySet(), Clients.CALL_TIMEOUT);
            require(commits.equals(fetched), "committed() " + fetched + ", expected " + commits);
        });
    }

    /** "partition/offset" of every record from firstOffset(partition) on. */
    private static Set<String> recordsFrom(IntToLongFunction firstOffset) {
        Set<String> records = new HashSet<>();
        for (int p = 0; p < TopicAdmin.PARTITIONS; p++) {
            for (long o = firstOffset.applyAsLong(p); o < TestRecords.PER_PARTITION; o++) records.add(p + "/" + o);
        }
        return records;
    }

    /** Runs body as a new member of the group, subscribed to the topic; it leaves the group after. */
    private void asMember(String autoOffsetReset, Consumer<KafkaConsumer<String, String>> body) {
        KafkaConsumer<String, String> consumer = clients.groupConsumer(group, autoOffsetReset);
        try {
            consumer.subscribe(List.of(topic));
            body.accept(consumer);
        } finally {
            consumer.close(Clients.CLOSE_TIMEOUT);
        }
    }

    /**
     * Polls until every expected record arrived (failing on any record that was not expected,
     * or whose key and value differ from TestRecords) or POLL_DEADLINE passed.
     */
    private Set<String> readUntil(KafkaConsumer<String, String> consumer, Set<String> expected) {
        Set<String> read = new HashSet<>();
        long deadline = System.nanoTime() + POLL_DEADLINE.toNanos();
        while (!read.containsAll(expected)) {
            require(System.nanoTime() < deadline, "read " + read.size() + " of " + expected.size() + " records in " + POLL_DEADLINE);
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                String at = r.partition() + "/" + r.offset();
                require(expected.contains(at), "unexpected record at " + at);
                require((r.key() + "=" + r.value()).equals(TestRecords.keyValueAt(r.partition(), r.offset())), "record at " + at + " is " + r.key() + "=" + r.value());
                read.add(at);
            }
        }
        return read;
    }
}
