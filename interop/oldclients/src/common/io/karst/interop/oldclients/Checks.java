package io.karst.interop.oldclients;

/**
 * Named checks of one program, one line each for run.sh ("PASS name (ms)" or
 * "FAIL name (ms): reason") and the closing "generation LABEL: N passed, M failed" that
 * ../lib/matrix.sh reads.
 */
public final class Checks {
    public interface Body { void run() throws Exception; }

    private int passed;
    private int failed;

    public boolean check(String name, Body body) {
        long start = System.nanoTime();
        try {
            body.run();
            passed++;
            System.out.println("PASS " + name + " (" + (System.nanoTime() - start) / 1_000_000 + " ms)");
            return true;
        } catch (Throwable t) {
            failed++;
            System.out.println("FAIL " + name + " (" + (System.nanoTime() - start) / 1_000_000 + " ms): " + chain(t));
            return false;
        }
    }

    public void notRun(String name, String because) {
        failed++;
        System.out.println("FAIL " + name + " (0 ms): not run, " + because);
    }

    /** Prints the closing line and exits with 0 only when every check passed. */
    public void finish(String label) {
        System.out.println("generation " + label + ": " + passed + " passed, " + failed + " failed");
        System.out.flush();
        Runtime.getRuntime().halt(failed == 0 ? 0 : 1);
    }

    public static void require(boolean condition, String message) {
        if (!condition) throw new AssertionError(message);
    }

    /** The exception chain on one line: futures wrap the client's exception. */
    private static String chain(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null && s.length() < 600; c = c.getCause()) {
            if (s.length() > 0) s.append(" <- ");
            s.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
            if (c.getCause() == c) break;
        }
        return s.toString().replace('\n', ' ');
    }
}
