import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a profiled hot sell's Java CPU samples went (bench/run.sh and bench/compare.sh with BENCH_PROFILE=1): reads the
 * {@code jdk.ExecutionSample} events of a JFR recording of the hot sell alone and prints, as Markdown, the samples by
 * thread group (thread names with their numbers folded: {@code vert.x-eventloop-thread-N}), then for each group of at
 * least 5% its samples by the innermost library frame (the first three parts of the frame's package;
 * {@code flashstock} for the service's own code) and the service's own methods most often on its stacks (inclusive:
 * where in the service's flow the time goes). Proportions
 * only: JFR samples running Java code, not the JVM's own threads (the JIT, the collector) nor native code.
 *
 * <p>Usage: {@code java bench/JfrBreakdown.java RECORDING.jfr [ROWS [FROM_MS TO_MS]]}: ROWS per table (default 12);
 * with FROM_MS and TO_MS (milliseconds since the epoch), only the samples taken between them.
 */
public final class JfrBreakdown {

    private static final String SAMPLE = "jdk.ExecutionSample";
    private static final double GROUP_SHARE = 0.05;

    private JfrBreakdown() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1 && args.length != 2 && args.length != 4) {
            System.err.println("usage: java JfrBreakdown RECORDING.jfr [ROWS [FROM_MS TO_MS]]");
            System.exit(2);
        }
        int rows = args.length >= 2 ? Integer.parseInt(args[1]) : 12;
        Instant from = args.length == 4 ? Instant.ofEpochMilli(Long.parseLong(args[2])) : Instant.MIN;
        Instant to = args.length == 4 ? Instant.ofEpochMilli(Long.parseLong(args[3])) : Instant.MAX;
        Map<String, List<List<String>>> stacksByGroup = new HashMap<>();
        int total = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(Path.of(args[0]))) {
            if (!SAMPLE.equals(event.getEventType().getName()) || event.getStackTrace() == null
                    || event.getStartTime().isBefore(from) || event.getStartTime().isAfter(to)) {
                continue;
            }
            stacksByGroup.computeIfAbsent(group(event.getThread("sampledThread")), g -> new ArrayList<>())
                    .add(frames(event.getStackTrace()));
            total++;
        }
        if (total == 0) {
            System.out.println("No execution samples in " + args[0] + ".");
            return;
        }
        Map<String, Integer> groups = new HashMap<>();
        stacksByGroup.forEach((group, stacks) -> groups.put(group, stacks.size()));
        System.out.printf("%d Java CPU samples (%s%s).%n%n", total, args[0],
                args.length == 4 ? ", " + from + " to " + to : "");
        table("thread group", groups, total, rows);
        for (Map.Entry<String, Integer> group : sorted(groups)) {
            if (group.getValue() < GROUP_SHARE * total) {
                break;
            }
            List<List<String>> stacks = stacksByGroup.get(group.getKey());
            Map<String, Integer> libraries = new HashMap<>();
            Map<String, Integer> methods = new HashMap<>();
            for (List<String> stack : stacks) {
                if (!stack.isEmpty()) {
                    libraries.merge(library(stack.get(0)), 1, Integer::sum);
                }
                Set<String> seen = new HashSet<>();
                for (String frame : stack) {
                    if (own(frame) && seen.add(frame)) {
                        methods.merge(frame, 1, Integer::sum);
                    }
                }
            }
            System.out.printf("%n%s: %d samples%n%n", group.getKey(), stacks.size());
            table("innermost library", libraries, stacks.size(), rows);
            System.out.println();
            table("the service's own methods on the stack (inclusive)", methods, stacks.size(), rows);
        }
    }

    /** The thread's name with every run of digits as N: a pool's threads as one group. */
    private static String group(RecordedThread thread) {
        String name = thread == null ? null : thread.getJavaName();
        return name == null ? "(unnamed)" : name.replaceAll("[0-9]+", "N");
    }

    /** The stack's Java frames, innermost first, as {@code package.Class.method}. */
    private static List<String> frames(RecordedStackTrace trace) {
        List<String> frames = new ArrayList<>(trace.getFrames().size());
        for (RecordedFrame frame : trace.getFrames()) {
            if (frame.isJavaFrame()) {
                String type = frame.getMethod().getType().getName().replaceAll("\\$\\$Lambda.*", "\\$\\$Lambda");
                frames.add(type + "." + frame.getMethod().getName());
            }
        }
        return frames;
    }

    /** Whether the frame is the service's own code (not a generated CDI proxy or a lambda's class). */
    private static boolean own(String frame) {
        return frame.startsWith("io.flashstock.") && !frame.contains("_ClientProxy.") && !frame.contains("$$Lambda.");
    }

    /** The library of a frame: the first three parts of its package, or {@code flashstock} for the service's own. */
    private static String library(String frame) {
        if (frame.startsWith("io.flashstock.")) {
            return "flashstock";
        }
        String[] parts = frame.split("\\.");
        int packageParts = 0;
        while (packageParts < parts.length - 2 && !Character.isUpperCase(parts[packageParts].charAt(0))) {
            packageParts++;
        }
        return String.join(".", java.util.Arrays.copyOf(parts, Math.min(3, Math.max(1, packageParts))));
    }

    private static List<Map.Entry<String, Integer>> sorted(Map<String, Integer> counts) {
        List<Map.Entry<String, Integer>> entries = new ArrayList<>(new TreeMap<>(counts).entrySet());
        entries.sort((a, b) -> Integer.compare(b.getValue(), a.getValue()));
        return entries;
    }

    private static void table(String what, Map<String, Integer> counts, int of, int rows) {
        System.out.printf("| %s | samples | share |%n|---|---:|---:|%n", what);
        int shown = 0;
        for (Map.Entry<String, Integer> entry : sorted(counts)) {
            if (shown++ == rows) {
                break;
            }
            System.out.printf("| %s | %d | %.1f%% |%n", entry.getKey(), entry.getValue(), 100.0 * entry.getValue() / of);
        }
    }
}
