package io.dupguard.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.curator.utils.PathUtils;
import org.junit.jupiter.api.Test;

class LockPathsTest {

    @Test
    void plainNamesStayReadable() {
        assertThat(LockPaths.segment("order-42_v1.2~x")).isEqualTo("order-42_v1.2~x");
        assertThat(LockPaths.segment("account:7")).isEqualTo("account%3A7");
        assertThat(LockPaths.lockPath("/dupguard/locks", "a/b")).isEqualTo("/dupguard/locks/a%2Fb");
    }

    @Test
    void everyNameBecomesOneValidSegmentAndNoTwoNamesShareOne() {
        List<String> names = List.of(
                "a/b",
                "a%2Fb",
                "a%252Fb",
                "a b",
                "a+b",
                ".",
                "..",
                "...",
                "%2E",
                "/",
                "//",
                "zookeeper",
                "übung ✓",
                "🔒",
                "\uE000private",
                "\uFFFDreplacement",
                "x".repeat(200));
        Set<String> segments = new HashSet<>();
        for (String name : names) {
            String segment = LockPaths.segment(name);
            PathUtils.validatePath("/base/" + segment);
            assertThat(segment).doesNotContain("/").isNotIn(".", "..");
            assertThat(segments.add(segment)).as(name).isTrue();
        }
        assertThat(LockPaths.segment(".")).isEqualTo("%2E");
        assertThat(LockPaths.segment("..")).isEqualTo("%2E%2E");
        assertThat(LockPaths.segment("🔒")).isEqualTo("%F0%9F%94%92");
    }

    @Test
    void basePathMustBeAnAbsoluteNonRootPath() {
        assertThat(LockPaths.basePath("/apps/locks")).isEqualTo("/apps/locks");
        for (String bad : new String[] {"/", "", "locks", "/locks/", "/a//b", "/a/./b", "/a\u0001"}) {
            assertThatThrownBy(() -> LockPaths.basePath(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("basePath");
        }
        assertThatThrownBy(() -> LockPaths.basePath(null)).hasMessageContaining("basePath");
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder(null)).hasMessageContaining("client");
    }
}
