package io.dupguard.jdbc.dedupe;

import java.util.List;

/**
 * One duplicate group as the comparison sees it.
 *
 * @param key the compared key values, as text (one per key column)
 * @param rows how many rows share the key
 * @param members for sampled groups, the rows in keep order (the first is kept); empty otherwise
 */
public record DuplicateGroup(List<String> key, long rows, List<Member> members) {
    /**
     * @param key the compared key values, as text (one per key column); not null
     * @param rows how many rows share the key
     * @param members for sampled groups, the rows in keep order (the first is kept); empty
     *     otherwise; not null
     * @throws NullPointerException if {@code key} or {@code members} is null or holds null
     */
    public DuplicateGroup {
        key = List.copyOf(key);
        members = List.copyOf(members);
    }

    /**
     * One row of a sampled group.
     *
     * @param id the primary key, as text
     * @param values the stored key values and ordering values, as text (NULL shown as {@code null})
     */
    public record Member(String id, List<String> values) {
        /**
         * @param id the primary key, as text
         * @param values the stored key values and ordering values, as text (NULL shown as {@code
         *     null})
         * @throws NullPointerException if {@code values} is null
         */
        public Member {
            values = List.copyOf(values);
        }
    }
}
