/** A {@code ResultCodec} on Jackson 3 (records, generics, {@code java.time}), usable without Spring. */
module io.dupguard.jackson {
    requires transitive io.dupguard.core;
    requires transitive tools.jackson.databind;
    requires com.fasterxml.jackson.annotation;

    exports io.dupguard.jackson;
}
