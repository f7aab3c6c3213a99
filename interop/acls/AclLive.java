// AclLive SASL_BOOTSTRAP ADMIN_BOOTSTRAP: the Java client (kafka-clients 4.4.0, run by run.sh with
// java's source launcher on ../kafka's jars) gaining and losing access while it runs. Producers and
// consumers log in as the SASL/PLAIN user alice; the Admin client, on the PLAINTEXT listener, is the
// super user User:ANONYMOUS and creates and deletes alice's ACLs between the steps, waiting until
// DescribeAcls shows the change. No client is re-created: each refusal, grant and loss is seen by
// the same producer or consumer instance. Prints "PASS name: detail" or "FAIL name: detail" per
// check, "NOTE ..." for what the client does that is not the broker's to decide; exits 1 on a FAIL.
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class AclLive {
    static final String ALICE = "User:alice";
    static final Duration STEP = Duration.ofSeconds(60); // a deadline for each awaited condition
    static String sasl;
    static Admin admin;
    static int failed;

    static void check(String name, boolean ok, String detail) {
        System.out.println((ok ? "PASS " : "FAIL ") + name + ": " + detail);
        if (!ok) failed++;
    }

    static Properties alice() {
        Properties p = new Properties();
        p.put("bootstrap.servers", sasl);
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "PLAIN");
        p.put("sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"alice-secret\";");
        // A classic group's leader assigns only the topics its metadata holds, and a topic it was refused
        // stays out of it until the next refresh (metadata.max.age.ms, 5 min by default): refreshing
        // every second keeps the grants within the test's deadlines.
        p.put("metadata.max.age.ms", "1000");
        return p;
    }

    static AclBinding allow(ResourceType type, String name, AclOperation op) {
        return new AclBinding(new ResourcePattern(type, name, PatternType.LITERAL),
            new AccessControlEntry(ALICE, "*", op, AclPermissionType.ALLOW));
    }

    static int aliceAcls() throws Exception {
        return admin.describeAcls(new AclBindingFilter(ResourcePatternFilter.ANY,
            new AccessControlEntryFilter(ALICE, null, AclOperation.ANY, AclPermissionType.ANY))).values().get().size();
    }

    // grant creates the ACLs and returns once DescribeAcls lists all of alice's.
    static void grant(List<AclBinding> acls) throws Exception {
        int before = aliceAcls();
        admin.createAcls(acls).all().get();
        long deadline = System.nanoTime() + STEP.toNanos();
        while (aliceAcls() < before + acls.size()) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("ACLs not listed: " + acls);
            Thread.sleep(100); // polling DescribeAcls for the condition, under the deadline
        }
    }

    // revokeAll deletes every ACL of alice's and returns once DescribeAcls lists none.
    static void revokeAll() throws Exception {
        admin.deleteAcls(List.of(new AclBindingFilter(ResourcePatternFilter.ANY,
            new AccessControlEntryFilter(ALICE, null, AclOperation.ANY, AclPermissionType.ANY)))).all().get();
        long deadline = System.nanoTime() + STEP.toNanos();
        while (aliceAcls() > 0) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("alice's ACLs still listed");
            Thread.sleep(100);
        }
    }

    // send produces one record and returns null when it was written, else the error's cause.
    static Throwable send(KafkaProducer<String, String> p, String topic, String value) {
        try {
            p.send(new ProducerRecord<>(topic, value)).get(30, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            return e;
        }
    }

    // sendUntil sends until the outcome satisfies want (a client may answer from what it knew before
    // the ACLs changed, until its metadata is refreshed) or the step's deadline passes.
    static Throwable sendUntil(KafkaProducer<String, String> p, String topic, Predicate<Throwable> want) {
        long deadline = System.nanoTime() + STEP.toNanos();
        Throwable last;
        do {
            last = send(p, topic, "v");
        } while (!want.test(last) && System.nanoTime() < deadline);
        return last;
    }

    static String describe(Throwable t) {
        return t == null ? "written" : t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    static boolean authz(Throwable t) {
        return t instanceof AuthorizationException;
    }

    // pollUntil polls until a record arrives (error == false) or poll throws an AuthorizationException
    // (error == true); it returns what ended the wait, or null past the step's deadline.
    static Object pollUntil(KafkaConsumer<String, String> c, boolean error) {
        long deadline = System.nanoTime() + STEP.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(500));
                if (!error && !records.isEmpty()) return records;
            } catch (AuthorizationException e) {
                if (error) return e;
                System.out.println("NOTE poll threw " + describe(e) + " while waiting for records");
            }
        }
        return null;
    }

    static KafkaConsumer<String, String> consumer(String group, String protocol, String topic) {
        Properties p = alice();
        p.put("group.id", group);
        p.put("group.protocol", protocol);
        p.put("auto.offset.reset", "earliest");
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        KafkaConsumer<String, String> c = new KafkaConsumer<>(p);
        c.subscribe(List.of(topic));
        return c;
    }

    static KafkaProducer<String, String> producer(boolean idempotent) {
        Properties p = alice();
        p.put("enable.idempotence", String.valueOf(idempotent));
        p.put("acks", "all");
        p.put("max.block.ms", "15000");
        p.put("delivery.timeout.ms", "20000");
        p.put("request.timeout.ms", "10000");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        return new KafkaProducer<>(p);
    }

    public static void main(String[] args) throws Exception {
        sasl = args[0];
        Properties ap = new Properties();
        ap.put("bootstrap.servers", args[1]);
        admin = Admin.create(ap);
        revokeAll(); // a broker the ACL differential used keeps alice's ACLs of its last phase
        admin.createTopics(List.of(new NewTopic("java-live", 1, (short) 1), new NewTopic("java-live-idem", 1, (short) 1))).all().get();
        Properties sp = new Properties();
        sp.put("bootstrap.servers", args[1]);
        sp.put("key.serializer", StringSerializer.class.getName());
        sp.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> seed = new KafkaProducer<>(sp)) {
            seed.send(new ProducerRecord<>("java-live", "seed")).get(30, TimeUnit.SECONDS);
        }

        // 1. No ACL: every client is refused.
        KafkaProducer<String, String> plain = producer(false);
        KafkaProducer<String, String> idem = producer(true);
        KafkaConsumer<String, String> classic = consumer("java-live-classic", "classic", "java-live");
        KafkaConsumer<String, String> kip848 = consumer("java-live-848", "consumer", "java-live");
        Throwable t = send(plain, "java-live", "refused");
        check("java_producer_refused", t instanceof TopicAuthorizationException, describe(t));
        // The client asks for the topic's metadata before InitProducerId, so the refusal it surfaces
        // is the topic's; which exception each client surfaces is compared with Kafka's by run.sh.
        t = send(idem, "java-live-idem", "refused");
        check("java_idempotent_producer_refused", authz(t), describe(t));
        for (var e : Map.of("classic", classic, "consumer", kip848).entrySet()) {
            Object got = pollUntil(e.getValue(), true);
            check("java_consumer_" + e.getKey() + "_refused", got != null,
                got == null ? "no error within " + STEP : describe((Throwable) got));
        }

        // 2. Granted while running: the same producer and consumers are served.
        List<AclBinding> acls = new ArrayList<>(List.of(
            allow(ResourceType.TOPIC, "java-live", AclOperation.WRITE), allow(ResourceType.TOPIC, "java-live", AclOperation.READ),
            allow(ResourceType.TOPIC, "java-live-idem", AclOperation.WRITE),
            allow(ResourceType.GROUP, "java-live-classic", AclOperation.READ), allow(ResourceType.GROUP, "java-live-848", AclOperation.READ)));
        grant(acls);
        t = sendUntil(plain, "java-live", x -> x == null);
        check("java_producer_granted", t == null, describe(t));
        for (var e : Map.of("classic", classic, "consumer", kip848).entrySet()) {
            Object got = pollUntil(e.getValue(), false);
            check("java_consumer_" + e.getKey() + "_granted", got != null, got == null ? "no record within " + STEP : "read");
        }
        t = sendUntil(idem, "java-live-idem", x -> x == null);
        check("java_idempotent_producer_granted", t == null, describe(t));

        // 3. Lost while running: the same clients are refused again.
        revokeAll();
        t = sendUntil(plain, "java-live", AclLive::authz);
        check("java_producer_lost", t instanceof TopicAuthorizationException, describe(t));
        t = sendUntil(idem, "java-live-idem", AclLive::authz);
        check("java_idempotent_producer_lost", t instanceof TopicAuthorizationException, describe(t));
        for (var e : Map.of("classic", classic, "consumer", kip848).entrySet()) {
            Object got = pollUntil(e.getValue(), true);
            check("java_consumer_" + e.getKey() + "_lost", got instanceof GroupAuthorizationException || got instanceof TopicAuthorizationException,
                got == null ? "no error within " + STEP : describe((Throwable) got));
        }

        // 4. Granted again: the idempotent producer, refused by Produce this time, is served again.
        grant(List.of(allow(ResourceType.TOPIC, "java-live-idem", AclOperation.WRITE)));
        t = sendUntil(idem, "java-live-idem", x -> x == null);
        check("java_idempotent_producer_granted_again", t == null, describe(t));

        for (AutoCloseable c : List.of(plain, idem, classic, kip848, admin)) {
            try {
                c.close();
            } catch (Exception e) {
                System.out.println("NOTE closing: " + describe(e));
            }
        }
        System.exit(failed == 0 ? 0 : 1);
    }
}
