package io.karst.interop;

import java.util.ArrayList;
import java.util.List;

/**
 * Entry point of the Java client interop suite. Runs every check against the broker named by
 * KARST_BOOTSTRAP, prints one PASS/FAIL line per check and the closing line
 * "interop-java: N passed, M failed"; exits 1 when any check failed.
 *
 * INTEROP_AUTOCREATE_OFF=1 adds the checks that need a broker with auto.create.topics.enable=false;
 * The classic consumer-group checks always run (INTEROP_GROUPS=0 skips them); INTEROP_GROUPS_CONSUMER=1
 * adds the same checks with the KIP-848 "consumer" group protocol. The transaction checks run
 * always (INTEROP_TXN=0 skips them). INTEROP_METRICS_URL (a Prometheus /metrics address of the broker)
 * adds the KIP-714 telemetry check. INTEROP_SHARE=1 adds the share group checks (KafkaShareConsumer);
 * INTEROP_ONLY=share runs only those.
 */
public final class Main {
    public static void main(String[] args) {
        String bootstrap = System.getenv().getOrDefault("KARST_BOOTSTRAP", "127.0.0.1:9092");
        boolean autoCreateOff = "1".equals(System.getenv("INTEROP_AUTOCREATE_OFF"));
        Checks checks = new Checks();
        if ("share".equals(System.getenv("INTEROP_ONLY"))) {
            // The share checks alone, for a quick run against one broker.
            new ShareConsumerSuite(bootstrap, checks).run();
            System.out.println("interop-java: " + checks.passed() + " passed, " + checks.failed() + " failed");
            System.exit(checks.failed() == 0 ? 0 : 1);
        }

        new ProduceConsumeSuite(bootstrap, checks).run();
        if (autoCreateOff) {
            new UnknownTopicSuite(bootstrap, checks).run();
        } else {
            System.out.println("SKIP unknown_topic (set INTEROP_AUTOCREATE_OFF=1 with a broker that has auto.create.topics.enable=false)");
        }

        if (!"0".equals(System.getenv("INTEROP_GROUPS"))) {
            new GroupConsumerSuite(bootstrap, checks, "classic").run();
            new GroupChurnSuite(bootstrap, checks, "classic").run();
        } else {
            System.out.println("SKIP group_classic_* (INTEROP_GROUPS=0)");
        }
        if ("1".equals(System.getenv("INTEROP_GROUPS_CONSUMER"))) {
            new GroupConsumerSuite(bootstrap, checks, "consumer").run();
            new GroupChurnSuite(bootstrap, checks, "consumer").run();
        } else {
            System.out.println("SKIP group_consumer_* (set INTEROP_GROUPS_CONSUMER=1)");
        }

        if (!"0".equals(System.getenv("INTEROP_TXN"))) {
            new TransactionSuite(bootstrap, checks).run();
        } else {
            System.out.println("SKIP txn_* (INTEROP_TXN=0)");
        }

        if ("1".equals(System.getenv("INTEROP_SHARE"))) {
            new ShareConsumerSuite(bootstrap, checks).run();
        } else {
            System.out.println("SKIP share_* (set INTEROP_SHARE=1)");
        }

        String metricsUrl = System.getenv("INTEROP_METRICS_URL");
        if (metricsUrl != null && !metricsUrl.isEmpty()) {
            new TelemetrySuite(bootstrap, metricsUrl, checks).run();
        } else {
            System.out.println("SKIP telemetry_* (INTEROP_METRICS_URL unset: Kafka serves KIP-714 only with a receiver plugin)");
        }

        System.out.println("interop-java: " + checks.passed() + " passed, " + checks.failed() + " failed");
        System.exit(checks.failed() == 0 ? 0 : 1);
    }

    /** Counts named checks; a check is a block that passes unless it throws. */
    static final class Checks {
        private final List<String> failures = new ArrayList<>();
        private int passed;

        interface Body { void run() throws Exception; }

        boolean check(String name, Body body) {
            long start = System.nanoTime();
            try {
                body.run();
                passed++;
                System.out.printf("PASS %s (%d ms)%n", name, (System.nanoTime() - start) / 1_000_000);
                return true;
            } catch (Throwable t) {
                failures.add(name);
                System.out.printf("FAIL %s (%d ms): %s%n", name, (System.nanoTime() - start) / 1_000_000, t);
                for (Throwable c = t.getCause(); c != null; c = c.getCause()) System.out.println("     caused by: " + c);
                return false;
            }
        }

        int passed() { return passed; }
        int failed() { return failures.size(); }
    }

    static void require(boolean condition, String message) {
        if (!condition) throw new AssertionError(message);
    }
}
