package io.karst.interop.generations;

/**
 * Runs named checks for one client version and prints one line each, "PASS name (ms)" or
 * "FAIL name (ms): reason", which run.sh reads. A check whose precondition failed is printed as
 * FAIL with that reason, so every version always reports the same set of checks.
 */
final class Checks {
    interface Body { void run() throws Exception; }

    private int passed;
    private int failed;

    boolean check(String name, Body body) {
        long start = System.nanoTime();
        try {
            body.run();
            passed++;
            System.out.println("PASS " + name + " (" + millisSince(start) + " ms)");
            return true;
        } catch (Throwable t) {
            failed++;
            System.out.println("FAIL " + name + " (" + millisSince(start) + " ms): " + describe(t));
            return false;
        }
    }

    void notRun(String name, String because) {
        failed++;
        System.out.println("FAIL " + name + " (0 ms): not run, " + because);
    }

    int passed() { return passed; }

    int failed() { return failed; }

    private static long millisSince(long start) { return (System.nanoTime() - start) / 1_000_000; }

    /** The exception chain on one line: futures wrap the client's exception in ExecutionException. */
    private static String describe(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null && s.length() < 600; c = c.getCause()) {
            if (s.length() > 0) s.append(" <- ");
            s.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
            if (c.getCause() == c) break;
        }
        return s.toString().replace('\n', ' ');
    }

    static void require(boolean condition, String message) {
        if (!condition) throw new AssertionError(message);
    }
}
