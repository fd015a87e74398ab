package io.dupguard.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The pages stay a reference a user can follow: every relative link reaches a file of the
 * repository and, with a {@code #fragment}, a heading of that page; no hand-written page is longer
 * than 4,000 words, benchmarks.md no longer than 400 lines; no page names a file users do not have.
 */
class DocPagesTest {
    private static final int MAX_WORDS = 4_000;
    private static final int MAX_BENCHMARK_LINES = 400;

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6} (.*)$");
    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern MD_LINK = Pattern.compile("\\[([^\\]]*)\\]\\([^)]*\\)");
    private static final Pattern INTERNAL = Pattern.compile(
            "SPEC\\.md|DESIGN\\.md|STYLE\\.md|\\.\\./shared|seeds/|\\bseed 00\\d|the project spec",
            Pattern.CASE_INSENSITIVE);

    private final Map<Path, Set<String>> anchors = new HashMap<>();

    @Test
    void everyRelativeLinkReachesAFileAndAHeading() {
        List<String> broken = new ArrayList<>();
        for (Path page : DocSnippetsTest.pages()) {
            List<String> lines = prose(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = LINK.matcher(lines.get(i));
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("^[a-z]+:.*")) {
                        continue; // https:, mailto:
                    }
                    int hash = target.indexOf('#');
                    String file = hash < 0 ? target : target.substring(0, hash);
                    Path resolved = file.isEmpty()
                            ? page
                            : page.getParent().resolve(file).normalize();
                    String where = DocSnippetsTest.ROOT.relativize(page) + ":" + (i + 1) + ": " + target;
                    if (!Files.exists(resolved)) {
                        broken.add(where + " (no such file)");
                    } else if (hash >= 0
                            && resolved.toString().endsWith(".md")
                            && !anchors(resolved).contains(target.substring(hash + 1))) {
                        broken.add(where + " (no such heading)");
                    }
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void pagesStayShortAndNameNoFileUsersDoNotHave() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path page : DocSnippetsTest.pages()) {
            String text = Files.readString(page);
            int words = text.isBlank() ? 0 : text.trim().split("\\s+").length;
            if (words > MAX_WORDS) {
                problems.add(
                        DocSnippetsTest.ROOT.relativize(page) + ": " + words + " words (at most " + MAX_WORDS + ")");
            }
            Matcher internal = INTERNAL.matcher(text);
            if (internal.find()) {
                problems.add(DocSnippetsTest.ROOT.relativize(page) + ": names '" + internal.group()
                        + "', which users of the repository do not have");
            }
        }
        long benchmarkLines = Files.readAllLines(DocSnippetsTest.ROOT.resolve("docs/benchmarks.md"))
                .size();
        if (benchmarkLines > MAX_BENCHMARK_LINES) {
            problems.add("docs/benchmarks.md: " + benchmarkLines + " lines (at most " + MAX_BENCHMARK_LINES + ")");
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void headingsBecomeTheAnchorsTheRendererMakes() {
        assertThat(slug("Replicas and failover (JDBC, [K7](guarantees.md#k7))"))
                .isEqualTo("replicas-and-failover-jdbc-k7");
        assertThat(slug("Create once ([K2](a.md#k2)) — balance initialisation"))
                .isEqualTo("create-once-k2--balance-initialisation");
        assertThat(slug("HTTP `Idempotency-Key` filter")).isEqualTo("http-idempotency-key-filter");
    }

    /** A page's lines outside code blocks. */
    private static List<String> prose(Path page) {
        List<String> out = new ArrayList<>();
        boolean inFence = false;
        try {
            for (String line : Files.readAllLines(page)) {
                if (FENCE.matcher(line).find()) {
                    inFence = !inFence;
                    out.add("");
                    continue;
                }
                out.add(inFence ? "" : line);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private Set<String> anchors(Path page) {
        return anchors.computeIfAbsent(page, p -> {
            Set<String> set = new HashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            for (String line : prose(p)) {
                Matcher h = HEADING.matcher(line);
                if (h.matches()) {
                    String s = slug(h.group(1));
                    int n = seen.merge(s, 1, Integer::sum);
                    set.add(n == 1 ? s : s + "-" + (n - 1));
                }
                Matcher a = Pattern.compile("<a (?:name|id)=\"([^\"]+)\"").matcher(line);
                while (a.find()) {
                    set.add(a.group(1));
                }
            }
            return set;
        });
    }

    /** GitHub's heading anchor: link text kept, lower case, punctuation dropped, spaces as hyphens. */
    static String slug(String heading) {
        String text = MD_LINK.matcher(heading.strip()).replaceAll("$1").toLowerCase(Locale.ROOT);
        return text.replaceAll("[^\\p{L}\\p{N}\\- _]", "").replace(' ', '-');
    }
}
