package io.dupguard.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every ```java block of README.md, docs/**&#47;*.md and examples/*&#47;README.md is the text of a tagged region of a
 * snippet source in this package, so the compiler checks what the reader sees (docs/development.md, "Docs snippets").
 *
 * <p>A block is preceded by a marker line {@code <!-- snippet: IdempotencySnippets#quickstart -->}; the region is the
 * lines between {@code // tag::quickstart[]} and {@code // end::quickstart[]} of {@code IdempotencySnippets.java}. The
 * block must equal the region after removing the region's common leading indentation, trailing whitespace ignored.
 * With {@code -Ddupguard.docs.update=true} the blocks are rewritten from the sources instead.
 */
class DocSnippetsTest {

    static final Pattern MARKER =
            Pattern.compile("^\\s*<!--\\s*snippet:\\s*([A-Za-z0-9_]+)#([A-Za-z0-9_.-]+)\\s*-->\\s*$");
    static final Pattern JAVA_FENCE = Pattern.compile("^( {0,12})(`{3,}|~{3,})\\s*(?i:java)\\b.*$");
    static final Pattern TAG = Pattern.compile("^\\s*// (tag|end)::([A-Za-z0-9_.-]+)\\[]\\s*$");

    static final String UPDATE_COMMAND = "./mvnw -B -pl dupguard-docs-check -am verify -DskipITs -Dtest=DocSnippetsTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Ddupguard.docs.update=true";

    static final Path ROOT = Paths.get(System.getProperty("dupguard.root", ".."))
            .toAbsolutePath()
            .normalize();
    static final Path SOURCES = ROOT.resolve("dupguard-docs-check/src/test/java/io/dupguard/docs");

    /** A tagged region: its lines without their common indentation, and where it starts (for messages). */
    record Region(String id, Path file, int line, List<String> lines) {}

    /** A ```java block of a markdown page: the marker's name (null if none) and the block's lines. */
    record Block(
            Path file,
            int fenceLine,
            int markerLine,
            String snippet,
            String indent,
            int bodyStart,
            List<String> lines) {}

    @Test
    void everyJavaBlockIsATaggedRegionOfASnippetSource() {
        Map<String, Region> regions = regions();
        boolean update = Boolean.getBoolean("dupguard.docs.update");
        List<String> problems = new ArrayList<>();
        List<String> rewritten = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = read(page);
            if (check(page, lines, regions, update, problems, rewritten)) {
                write(page, lines);
            }
        }
        if (!rewritten.isEmpty()) {
            System.out.println("Rewrote " + rewritten.size() + " block(s) from the snippet sources:\n  "
                    + String.join("\n  ", rewritten));
        }
        assertThat(problems)
                .as("docs snippets (docs/development.md, \"Docs snippets\"); after editing a snippet source, "
                        + "regenerate the markdown with\n  " + UPDATE_COMMAND + "\n")
                .isEmpty();
    }

    /**
     * Checks the blocks of one page against the regions, adding what is wrong to {@code problems}; with
     * {@code update}, a block that differs from its region is replaced by it in {@code lines} instead.
     *
     * @return whether {@code lines} changed
     */
    static boolean check(
            Path page,
            List<String> lines,
            Map<String, Region> regions,
            boolean update,
            List<String> problems,
            List<String> rewritten) {
        List<Block> stale = new ArrayList<>();
        for (Block block : blocks(page, lines, problems)) {
            String where = rel(page) + ":" + block.fenceLine();
            if (block.snippet() == null) {
                problems.add(where + ": a ```java block without a marker line before it; put"
                        + " <!-- snippet: SomeSnippets#name --> on the line above the fence and the code between"
                        + " // tag::name[] and // end::name[] in " + rel(SOURCES) + "/SomeSnippets.java");
                continue;
            }
            Region region = regions.get(block.snippet());
            if (region == null) {
                problems.add(where + ": marker names " + block.snippet() + ", but " + missing(block.snippet()));
                continue;
            }
            String diff = firstDifference(block.lines(), region.lines());
            if (diff == null) {
                continue;
            }
            if (update) {
                stale.add(block);
                rewritten.add(where + " <- " + block.snippet());
            } else {
                problems.add(where + ": the block of " + block.snippet() + " differs from " + rel(region.file()) + ":"
                        + region.line() + " " + diff);
            }
        }
        // From the last block up, so a rewrite does not move the blocks still to do.
        for (int i = stale.size() - 1; i >= 0; i--) {
            Block block = stale.get(i);
            List<String> replacement = regions.get(block.snippet()).lines().stream()
                    .map(l -> l.isEmpty() ? l : block.indent() + l)
                    .collect(Collectors.toList());
            List<String> body = lines.subList(
                    block.bodyStart(), block.bodyStart() + block.lines().size());
            body.clear();
            body.addAll(replacement);
        }
        return !stale.isEmpty();
    }

    @Test
    void everyTaggedRegionIsShownBySomePage() {
        Set<String> used = new TreeSet<>();
        List<String> problems = new ArrayList<>();
        for (Path page : pages()) {
            for (Block block : blocks(page, read(page), problems)) {
                if (block.snippet() != null) {
                    used.add(block.snippet());
                }
            }
        }
        List<String> orphans = regions().values().stream()
                .filter(r -> !used.contains(r.id()))
                .map(r -> rel(r.file()) + ":" + r.line() + ": " + r.id()
                        + " is not shown by any page (add <!-- snippet: " + r.id()
                        + " --> and a ```java block, or remove the tags)")
                .collect(Collectors.toList());
        assertThat(orphans).as("orphan snippets").isEmpty();
    }

    @Test
    void theCheckFindsWhatItShould() {
        assertThat(firstDifference(List.of("a", "b  "), List.of("a", "b"))).isNull();
        assertThat(firstDifference(List.of("a", "b"), List.of("a", "c")))
                .contains("line 2")
                .contains("- b")
                .contains("+ c");
        assertThat(firstDifference(List.of("a"), List.of("a", "c"))).contains("line 2");
        assertThat(dedent(List.of("    x", "", "      y"))).containsExactly("x", "", "  y");
        assertThat(MARKER.matcher("<!-- snippet: IdempotencySnippets#quickstart -->")
                        .matches())
                .isTrue();
        assertThat(JAVA_FENCE.matcher("```java").matches()).isTrue();
        assertThat(JAVA_FENCE.matcher("```javascript").matches()).isFalse();
        assertThat(JAVA_FENCE.matcher("```text").matches()).isFalse();
        List<String> problems = new ArrayList<>();
        List<Block> found = blocks(
                Paths.get("x.md"),
                List.of("text", "```java", "a();", "```", "<!-- snippet: A#b -->", "", "```java", "b();", "```"),
                problems);
        assertThat(found).extracting(Block::snippet).containsExactly(null, "A#b");
        assertThat(found.get(1).lines()).containsExactly("b();");
        assertThat(problems).isEmpty();
    }

    @Test
    void aStaleBlockIsReportedOrRewrittenInPlace() {
        Map<String, Region> regions = Map.of(
                "A#b", new Region("A#b", SOURCES.resolve("A.java"), 10, List.of("if (x) {", "", "    y();", "}")));
        List<String> page = new ArrayList<>(List.of(
                "1. A step:",
                "",
                "   <!-- snippet: A#b -->",
                "   ```java",
                "   if (x) {",
                "       z();",
                "   }",
                "   ```",
                "",
                "<!-- snippet: A#missing -->",
                "```Java",
                "```",
                "<!-- snippet: A#b -->",
                "```bash",
                "```",
                "```java",
                "```"));
        Path file = ROOT.resolve("docs/x.md");

        List<String> problems = new ArrayList<>();
        assertThat(check(file, page, regions, false, problems, new ArrayList<>()))
                .isFalse();
        assertThat(problems).hasSize(4);
        assertThat(problems.get(0)).startsWith("docs/x.md:13: marker A#b is not followed by a ```java block");
        assertThat(problems.get(1))
                .startsWith("docs/x.md:4: the block of A#b differs from")
                .contains("at line 2 of the block")
                .contains("-     z();   (markdown)")
                .contains("+    (source)");
        assertThat(problems.get(2)).startsWith("docs/x.md:11: marker names A#missing, but ");
        assertThat(problems.get(3)).startsWith("docs/x.md:16: a ```java block without a marker");

        List<String> rewritten = new ArrayList<>();
        assertThat(check(file, page, regions, true, new ArrayList<>(), rewritten))
                .isTrue();
        assertThat(rewritten).containsExactly("docs/x.md:4 <- A#b");
        assertThat(page.subList(3, 9))
                .containsExactly("   ```java", "   if (x) {", "", "       y();", "   }", "   ```");
        List<String> again = new ArrayList<>();
        check(file, page, regions, false, again, new ArrayList<>());
        assertThat(again).noneMatch(p -> p.contains("A#b differs"));
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** The regions of every snippet source, by {@code Class#tag}. */
    static Map<String, Region> regions() {
        Map<String, Region> regions = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (Path source : list(SOURCES, p -> p.toString().endsWith(".java"))) {
            String className = source.getFileName().toString().replaceFirst("\\.java$", "");
            List<String> lines = read(source);
            Map<String, Integer> open = new LinkedHashMap<>();
            Map<String, List<String>> bodies = new LinkedHashMap<>();
            for (int i = 0; i < lines.size(); i++) {
                Matcher tag = TAG.matcher(lines.get(i));
                if (tag.matches()) {
                    String id = className + "#" + tag.group(2);
                    if (tag.group(1).equals("tag")) {
                        if (open.containsKey(id) || regions.containsKey(id)) {
                            problems.add(rel(source) + ":" + (i + 1) + ": " + id + " is tagged twice");
                        }
                        open.put(id, i + 1);
                        bodies.put(id, new ArrayList<>());
                    } else {
                        Integer start = open.remove(id);
                        if (start == null) {
                            problems.add(rel(source) + ":" + (i + 1) + ": end of " + id + " without its tag");
                        } else {
                            regions.put(id, new Region(id, source, start, dedent(bodies.remove(id))));
                        }
                    }
                } else {
                    for (List<String> body : bodies.values()) {
                        body.add(lines.get(i));
                    }
                }
            }
            open.forEach((id, line) -> problems.add(rel(source) + ":" + line + ": " + id + " has no end:: line"));
        }
        assertThat(problems).as("snippet sources").isEmpty();
        return regions;
    }

    /** The markdown pages that may hold snippets: README.md, docs/**&#47;*.md, examples/*&#47;README.md. */
    static List<Path> pages() {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        pages.addAll(list(ROOT.resolve("docs"), p -> p.toString().endsWith(".md")));
        Path examples = ROOT.resolve("examples");
        if (Files.isDirectory(examples)) {
            try (Stream<Path> dirs = Files.list(examples)) {
                dirs.map(d -> d.resolve("README.md"))
                        .filter(Files::isRegularFile)
                        .sorted()
                        .forEach(pages::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        assertThat(pages.get(0)).as("the repository root (-Ddupguard.root)").isRegularFile();
        return pages;
    }

    /**
     * The ```java blocks of a page, each with the marker on the line above its fence (blank lines between allowed).
     * A marker not followed by a ```java block is a problem.
     */
    static List<Block> blocks(Path page, List<String> lines, List<String> problems) {
        List<Block> blocks = new ArrayList<>();
        String pendingMarker = null;
        int markerLine = -1;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher marker = MARKER.matcher(line);
            Matcher fence = JAVA_FENCE.matcher(line);
            if (marker.matches()) {
                if (pendingMarker != null) {
                    problems.add(rel(page) + ":" + markerLine + ": marker " + pendingMarker
                            + " is not followed by a ```java block");
                }
                pendingMarker = marker.group(1) + "#" + marker.group(2);
                markerLine = i + 1;
            } else if (fence.matches()) {
                String indent = fence.group(1);
                String close = fence.group(2);
                int end = i + 1;
                while (end < lines.size() && !isClosingFence(lines.get(end), close)) {
                    end++;
                }
                List<String> body = new ArrayList<>();
                for (String l : lines.subList(i + 1, end)) {
                    body.add(stripIndent(l, indent.length()));
                }
                blocks.add(new Block(page, i + 1, markerLine, pendingMarker, indent, i + 1, body));
                pendingMarker = null;
                markerLine = -1;
                i = end;
            } else if (line.trim().startsWith("```") || line.trim().startsWith("~~~")) {
                // Another fenced block (bash, text, ...): skip it, so a fence inside it is not taken for one.
                String close = line.trim().replaceAll("^(`+|~+).*$", "$1");
                int end = i + 1;
                while (end < lines.size() && !isClosingFence(lines.get(end), close)) {
                    end++;
                }
                i = end;
                if (pendingMarker != null) {
                    problems.add(rel(page) + ":" + markerLine + ": marker " + pendingMarker
                            + " is not followed by a ```java block");
                    pendingMarker = null;
                }
            } else if (!line.isBlank() && pendingMarker != null) {
                problems.add(rel(page) + ":" + markerLine + ": marker " + pendingMarker
                        + " is not followed by a ```java block");
                pendingMarker = null;
            }
        }
        if (pendingMarker != null) {
            problems.add(
                    rel(page) + ":" + markerLine + ": marker " + pendingMarker + " is not followed by a ```java block");
        }
        return blocks;
    }

    static boolean isClosingFence(String line, String open) {
        String t = line.trim();
        return t.startsWith(open) && t.chars().allMatch(c -> c == open.charAt(0));
    }

    static String stripIndent(String line, int n) {
        int i = 0;
        while (i < n && i < line.length() && line.charAt(i) == ' ') {
            i++;
        }
        return line.substring(i);
    }

    /** The lines without their common leading indentation (blank lines do not count) and trailing whitespace. */
    static List<String> dedent(List<String> lines) {
        int common = lines.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        return lines.stream()
                .map(l -> l.isBlank() ? "" : l.substring(common).stripTrailing())
                .collect(Collectors.toList());
    }

    /** Null if equal (trailing whitespace ignored), else where and how they first differ. */
    static String firstDifference(List<String> doc, List<String> source) {
        int n = Math.max(doc.size(), source.size());
        for (int i = 0; i < n; i++) {
            String d = i < doc.size() ? doc.get(i).stripTrailing() : null;
            String s = i < source.size() ? source.get(i).stripTrailing() : null;
            if (d == null || !d.equals(s)) {
                return "at line " + (i + 1) + " of the block:\n      - " + (d == null ? "(the block ends here)" : d)
                        + "   (markdown)\n      + " + (s == null ? "(the region ends here)" : s) + "   (source)";
            }
        }
        return null;
    }

    static String missing(String id) {
        String className = id.substring(0, id.indexOf('#'));
        Path source = SOURCES.resolve(className + ".java");
        if (!Files.isRegularFile(source)) {
            return rel(source) + " does not exist";
        }
        return rel(source) + " has no region " + id.substring(id.indexOf('#') + 1) + " (// tag::"
                + id.substring(id.indexOf('#') + 1) + "[] ... // end::" + id.substring(id.indexOf('#') + 1) + "[])";
    }

    static List<Path> list(Path dir, java.util.function.Predicate<Path> filter) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).filter(filter).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> read(Path file) {
        try {
            return new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void write(Path file, List<String> lines) {
        try {
            String text = String.join("\n", lines) + "\n";
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String rel(Path file) {
        return ROOT.relativize(file.toAbsolutePath().normalize()).toString();
    }
}
