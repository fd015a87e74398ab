package io.dupguard.apicheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The public surface of each library module, as docs/api.md promises it:
 *
 * <ul>
 *   <li>the packages a module exports (its {@code module-info}; for a module without one, every
 *       package with a public type) are exactly the API and SPI packages docs/api.md lists for it,
 *       and its internal packages are exported to no one but dupguard's own modules;
 *   <li>its public and protected types and members (read with {@code javap} from the compiled
 *       classes) equal the committed listing {@code <module>/api/<module>.api}, so that every API
 *       change is deliberate and shows up in review.
 * </ul>
 */
class ApiSurfaceTest {
    private static final String UPDATE =
            "./mvnw -B -q -pl dupguard-api-check -am verify -Ddupguard.api.update=true -DskipITs -Dtest=ApiSurfaceTest"
                    + " -Dsurefire.failIfNoSpecifiedTests=false";
    private static final Path ROOT =
            Path.of(System.getProperty("dupguard.root", "..")).normalize();
    private static final Pattern DOC_ROW =
            Pattern.compile("^\\| `(io\\.dupguard[a-z.]*)` \\| (dupguard-[a-z-]+) \\| (API|SPI|internal) \\|.*");

    /** The library modules: their API is what applications compile against. */
    static List<String> modules() {
        return List.of(
                "dupguard-core",
                "dupguard-jdbc",
                "dupguard-redis",
                "dupguard-zookeeper",
                "dupguard-shedlock",
                "dupguard-spring-integration",
                "dupguard-jackson",
                "dupguard-console",
                "dupguard-spring-boot-autoconfigure");
    }

    @ParameterizedTest
    @MethodSource("modules")
    void exportedPackagesAreTheOnesDocsApiMdLists(String module) throws IOException {
        Map<String, String> documented = documentedPackages(module);
        Set<String> publicPackages = documented.entrySet().stream()
                .filter(e -> !e.getValue().equals("internal"))
                .map(Map.Entry::getKey)
                .collect(Collectors.toCollection(TreeSet::new));

        assertThat(exportedPackages(module))
                .as("packages %s exports (docs/api.md lists its API and SPI packages)", module)
                .containsExactlyInAnyOrderElementsOf(publicPackages);
        assertThat(packagesWithClasses(module))
                .as("every package of %s is listed in docs/api.md", module)
                .isSubsetOf(documented.keySet());
    }

    @ParameterizedTest
    @MethodSource("modules")
    void publicApiEqualsTheCommittedListing(String module) throws IOException {
        String listing = listing(module);
        Path file = ROOT.resolve(module).resolve("api").resolve(module + ".api");
        if (Boolean.getBoolean("dupguard.api.update")) {
            Files.createDirectories(file.getParent());
            Files.writeString(file, listing, StandardCharsets.UTF_8);
            return;
        }
        String committed = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        if (!committed.equals(listing)) {
            throw new AssertionError("The public API of " + module + " differs from " + ROOT.relativize(file) + ":\n"
                    + diff(committed, listing)
                    + "\nIf the change is deliberate (docs/api.md: changing the API), regenerate the listing and"
                    + " commit it:\n  " + UPDATE);
        }
    }

    /**
     * Backends depend on the SPI, the SPI on the API, never back: the feature packages of core import
     * nothing of {@code lock.spi}, {@code memory} or a backend module, and {@code lock.spi} nothing of
     * {@code memory} or a backend module.
     */
    @org.junit.jupiter.api.Test
    void featurePackagesDoNotDependOnTheSpiOrTheBackends() throws IOException {
        Path sources = ROOT.resolve("dupguard-core/src/main/java/io/dupguard");
        String backends = "io\\.dupguard\\.(memory|jdbc|redis|zookeeper|jackson|spring)\\b";
        Map<String, Pattern> forbidden = Map.of(
                "", Pattern.compile(backends + "|io\\.dupguard\\.lock\\.spi\\b"),
                "idempotency", Pattern.compile(backends + "|io\\.dupguard\\.lock\\.spi\\b"),
                "lock", Pattern.compile(backends + "|io\\.dupguard\\.lock\\.spi\\b"),
                "retry", Pattern.compile(backends + "|io\\.dupguard\\.lock\\.spi\\b"),
                "state", Pattern.compile(backends + "|io\\.dupguard\\.lock\\.spi\\b"),
                "token", Pattern.compile(backends + "|io\\.dupguard\\.lock\\.spi\\b"),
                "lock/spi", Pattern.compile(backends));
        List<String> violations = new ArrayList<>();
        for (Map.Entry<String, Pattern> e : forbidden.entrySet()) {
            try (Stream<Path> files = Files.list(sources.resolve(e.getKey()))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    for (String line : Files.readAllLines(f)) {
                        boolean reference = line.startsWith("import ") || line.contains("{@link");
                        if (reference && e.getValue().matcher(line).find()) {
                            violations.add(ROOT.relativize(f) + ": " + line.trim());
                        }
                    }
                }
            }
        }
        assertThat(violations)
                .as("references against the dependency rule of docs/api.md")
                .isEmpty();
    }

    /** Package → kind (API, SPI, internal) for {@code module}, from the table in docs/api.md. */
    private static Map<String, String> documentedPackages(String module) throws IOException {
        Map<String, String> packages = new TreeMap<>();
        for (String line : Files.readAllLines(ROOT.resolve("docs/api.md"))) {
            Matcher m = DOC_ROW.matcher(line);
            if (m.matches() && m.group(2).equals(module)) {
                packages.put(m.group(1), m.group(3));
            }
        }
        assertThat(packages).as("docs/api.md lists the packages of %s", module).isNotEmpty();
        return packages;
    }

    /** Unqualified exports of the module descriptor, or every package with a public type. */
    private static Set<String> exportedPackages(String module) throws IOException {
        Path descriptor = classes(module).resolve("module-info.class");
        if (Files.exists(descriptor)) {
            try (InputStream in = Files.newInputStream(descriptor)) {
                ModuleDescriptor d = ModuleDescriptor.read(in);
                return d.exports().stream()
                        .filter(e -> !e.isQualified())
                        .map(ModuleDescriptor.Exports::source)
                        .collect(Collectors.toCollection(TreeSet::new));
            }
        }
        Set<String> packages = new TreeSet<>();
        for (ClassInfo c : javap(module, classNames(module, packagesWithClasses(module)))) {
            if (c.isPublic() && !c.name().contains("$")) {
                packages.add(c.name().substring(0, c.name().lastIndexOf('.')));
            }
        }
        return packages;
    }

    private static String listing(String module) throws IOException {
        Set<String> exported = exportedPackages(module);
        Map<String, ClassInfo> accessible = new TreeMap<>();
        List<ClassInfo> all = javap(module, classNames(module, exported));
        Map<String, ClassInfo> byName =
                all.stream().collect(Collectors.toMap(ClassInfo::name, c -> c, (a, b) -> a, TreeMap::new));
        for (ClassInfo c : all) {
            if (accessible(c, byName)) {
                accessible.put(c.name(), c);
            }
        }
        StringBuilder out = new StringBuilder();
        out.append("# Public API of ")
                .append(module)
                .append(" (public and protected members of the exported packages).\n")
                .append("# Generated; do not edit. Regenerate: ")
                .append(UPDATE)
                .append('\n');
        for (ClassInfo c : accessible.values()) {
            out.append('\n').append(c.header()).append('\n');
            for (String member : new TreeSet<>(c.members())) {
                out.append("  ").append(member).append('\n');
            }
        }
        return out.toString();
    }

    /** A nested type is part of the API only if every enclosing type is. */
    private static boolean accessible(ClassInfo c, Map<String, ClassInfo> byName) {
        if (!c.isPublic()) {
            return false;
        }
        int dollar = c.name().lastIndexOf('$');
        if (dollar < 0) {
            return true;
        }
        ClassInfo outer = byName.get(c.name().substring(0, dollar));
        return outer != null && accessible(outer, byName);
    }

    private static Path classes(String module) {
        Path dir = ROOT.resolve(module).resolve("target/classes");
        assertThat(dir).as("compiled classes of %s (build with -am)", module).isDirectory();
        return dir;
    }

    private static Set<String> packagesWithClasses(String module) throws IOException {
        Path root = classes(module);
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".class"))
                    .map(p -> root.relativize(p.getParent()).toString().replace('/', '.'))
                    .filter(p -> p.startsWith("io.dupguard"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    /** Binary names of the named (not anonymous or local) classes in {@code packages}. */
    private static List<String> classNames(String module, Set<String> packages) throws IOException {
        Path root = classes(module);
        List<String> names = new ArrayList<>();
        for (String pkg : packages) {
            try (Stream<Path> files = Files.list(root.resolve(pkg.replace('.', '/')))) {
                files.map(p -> p.getFileName().toString())
                        .filter(f -> f.endsWith(".class") && !f.equals("package-info.class"))
                        .map(f -> f.substring(0, f.length() - ".class".length()))
                        .filter(f -> !f.matches(".*\\$[0-9].*"))
                        .sorted()
                        .forEach(f -> names.add(pkg + "." + f));
            }
        }
        return names;
    }

    /** One class as {@code javap -protected} prints it. */
    private record ClassInfo(String name, String header, List<String> members) {
        boolean isPublic() {
            return header.startsWith("public ") || header.startsWith("protected ");
        }
    }

    private static final Pattern HEADER =
            Pattern.compile(".*?\\b(?:class|interface|enum|record|@interface) ([\\w.$]+).*\\{$");

    private static List<ClassInfo> javap(String module, List<String> classNames) {
        if (classNames.isEmpty()) {
            return List.of();
        }
        ToolProvider javap = ToolProvider.findFirst("javap").orElseThrow();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        List<String> args =
                new ArrayList<>(List.of("-protected", "-cp", classes(module).toString()));
        args.addAll(classNames);
        int status = javap.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
        assertThat(status).as("javap: %s", err).isZero();

        List<ClassInfo> classes = new ArrayList<>();
        String header = null;
        String name = null;
        Set<String> members = new LinkedHashSet<>();
        for (String line : out.toString().split("\n")) {
            if (line.startsWith("Compiled from") || line.isBlank()) {
                continue;
            }
            if (header == null) {
                Matcher m = HEADER.matcher(line);
                if (m.matches()) {
                    header = line.substring(0, line.length() - 1).trim();
                    name = m.group(1);
                    members = new LinkedHashSet<>();
                }
            } else if (line.equals("}")) {
                classes.add(new ClassInfo(name, header, List.copyOf(members)));
                header = null;
            } else if (!line.trim().equals("static {};")) {
                members.add(line.trim());
            }
        }
        return classes;
    }

    /** The lines only in one of the two texts, each member with its type, marked - (committed) and + (compiled). */
    private static String diff(String committed, String actual) {
        List<String> before = qualified(committed);
        List<String> after = qualified(actual);
        List<String> changes = new ArrayList<>();
        before.stream().filter(l -> !after.contains(l)).forEach(l -> changes.add("  - " + l));
        after.stream().filter(l -> !before.contains(l)).forEach(l -> changes.add("  + " + l));
        int shown = Math.min(changes.size(), 100);
        return String.join("\n", changes.subList(0, shown))
                + (shown < changes.size() ? "\n  … and " + (changes.size() - shown) + " more lines" : "");
    }

    private static List<String> qualified(String listing) {
        List<String> lines = new ArrayList<>();
        String type = "";
        for (String line : listing.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("  ")) {
                lines.add(type + " :: " + line.trim());
            } else {
                type = line;
                lines.add(line);
            }
        }
        return lines;
    }
}
