package io.flashstock.config;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.flashstock.devservices.LocalServersConfigSourceFactory;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import io.smallrye.config.WithParentName;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The configuration reference in {@code docs/operations.md} and the {@code @ConfigMapping}
 * {@link FlashstockConfig} name the same {@code flashstock.*} properties. A plain unit test: no Quarkus, no servers.
 * <p>
 * The mapping's property names are derived by reflection as SmallRye Config derives them: the prefix of
 * {@code @ConfigMapping}, each abstract method's name in kebab case (or its {@code @WithName}), nested group
 * interfaces recursed into ({@code @WithParentName} adds no segment), {@code Map} members as {@code name.*}, and
 * everything else (strings, numbers, {@code Duration}, enums, {@code Optional}/{@code List} of those) a leaf.
 * <p>
 * The reference is every Markdown table row of {@code docs/operations.md} whose first cell is a back-quoted
 * {@code flashstock.} key: {@code | `flashstock.x.y` | default | meaning |}. It must list every mapping property, name
 * no key that does not exist, stay sorted by key, and show each {@code @WithDefault} value back-quoted in its second
 * cell.
 */
class ConfigReferenceTest {

    static final Path REFERENCE = Path.of("docs", "operations.md");

    /** A reference row: {@code | `flashstock.some.key` | ...}. */
    private static final Pattern ROW = Pattern.compile("^\\|\\s*`(flashstock\\.[^`\\s]+)`\\s*\\|(.*)$");

    /**
     * {@code flashstock.*} keys that are real but not part of the mapping: read before the application starts, by
     * a config source factory of dev mode.
     */
    private static final Set<String> OUTSIDE_THE_MAPPING = Set.of(LocalServersConfigSourceFactory.ENABLED);

    private static Map<String, Optional<String>> mapping;
    private static Map<String, String> reference;
    private static List<String> referenceOrder;

    @BeforeAll
    static void read() throws IOException {
        mapping = properties(FlashstockConfig.class);
        Path file = referenceFile();
        reference = new LinkedHashMap<>();
        referenceOrder = new ArrayList<>();
        List<String> duplicates = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            Matcher row = ROW.matcher(line.strip());
            if (row.matches()) {
                String key = row.group(1);
                if (reference.put(key, row.group(2)) != null) {
                    duplicates.add(key);
                }
                referenceOrder.add(key);
            }
        }
        if (reference.isEmpty()) {
            fail(file + " has no configuration reference rows (lines like | `flashstock.strategy` | `db-optimistic` |"
                    + " ... |); the table must be there for this test to compare it with " + FlashstockConfig.class
                            .getName());
        }
        if (!duplicates.isEmpty()) {
            fail(file + " lists these keys more than once: " + duplicates);
        }
    }

    @Test
    void everyMappingPropertyIsDocumented() {
        Set<String> missing = new TreeSet<>(mapping.keySet());
        missing.removeAll(reference.keySet());
        if (!missing.isEmpty()) {
            fail("Undocumented configuration: " + FlashstockConfig.class.getSimpleName() + " maps " + missing
                    + ", which the configuration reference in " + REFERENCE + " does not list. Add a row for each,"
                    + " in key order: | `" + missing.iterator().next() + "` | `<default>` | <what it governs> |");
        }
    }

    @Test
    void everyDocumentedKeyExists() {
        Set<String> bogus = new TreeSet<>(reference.keySet());
        bogus.removeAll(mapping.keySet());
        bogus.removeAll(OUTSIDE_THE_MAPPING);
        if (!bogus.isEmpty()) {
            fail("The configuration reference in " + REFERENCE + " documents " + bogus + ", which "
                    + FlashstockConfig.class.getName() + " does not map (nor is it one of " + OUTSIDE_THE_MAPPING
                    + "): setting it would have no effect. Fix the key's spelling or remove the row. The mapping's"
                    + " properties are: " + mapping.keySet());
        }
    }

    @Test
    void referenceIsSortedByKey() {
        List<String> sorted = new ArrayList<>(referenceOrder);
        sorted.sort(Comparator.naturalOrder());
        for (int i = 0; i < sorted.size(); i++) {
            if (!sorted.get(i).equals(referenceOrder.get(i))) {
                fail("The configuration reference in " + REFERENCE + " is not sorted by key: `" + referenceOrder.get(i)
                        + "` stands where `" + sorted.get(i) + "` belongs (row " + (i + 1) + ").");
            }
        }
    }

    @Test
    void documentedDefaultsMatchTheMapping() {
        List<String> wrong = new ArrayList<>();
        mapping.forEach((key, defaultValue) -> {
            String cells = reference.get(key);
            if (defaultValue.isEmpty() || cells == null) {
                return; // no default to compare, or missing altogether (everyMappingPropertyIsDocumented says so)
            }
            String defaultCell = cells.split("\\|", -1)[0];
            if (!defaultCell.contains("`" + defaultValue.get() + "`")) {
                wrong.add(key + ": the mapping's default is `" + defaultValue.get() + "`, the reference says"
                        + defaultCell.stripTrailing());
            }
        });
        if (!wrong.isEmpty()) {
            fail("Defaults in the configuration reference in " + REFERENCE + " differ from "
                    + FlashstockConfig.class.getSimpleName() + "'s @WithDefault:\n  " + String.join("\n  ", wrong));
        }
    }

    /** Checks the derivation itself on names whose spelling is easy to get wrong. */
    @Test
    void derivesSmallRyeNames() {
        for (String expected : List.of("flashstock.strategy", "flashstock.max-quantity-per-request",
                "flashstock.lua.reconcile-after-quiet", "flashstock.rate-limit.per-user-burst")) {
            if (!mapping.containsKey(expected)) {
                fail("The derivation of the mapping's names misses " + expected + "; it found " + mapping.keySet());
            }
        }
    }

    // --- the mapping's properties, by reflection -----------------------------------------------------------------

    /** Every property of a {@code @ConfigMapping} root, with its {@code @WithDefault} (if any), sorted by name. */
    static Map<String, Optional<String>> properties(Class<?> root) {
        ConfigMapping annotation = root.getAnnotation(ConfigMapping.class);
        if (annotation == null) {
            throw new IllegalArgumentException(root + " is not a @ConfigMapping");
        }
        Map<String, Optional<String>> out = new TreeMap<>();
        collect(annotation.prefix(), root, out, new ArrayList<>());
        return out;
    }

    private static void collect(String prefix, Class<?> group, Map<String, Optional<String>> out,
            List<Class<?>> path) {
        if (path.contains(group)) {
            throw new IllegalStateException("recursive config group " + group + " under " + prefix);
        }
        path.add(group);
        Method[] methods = group.getMethods();
        Arrays.sort(methods, Comparator.comparing(Method::getName));
        for (Method method : methods) {
            if (method.isDefault() || Modifier.isStatic(method.getModifiers()) || method.getParameterCount() > 0
                    || method.getDeclaringClass() == Object.class || method.isSynthetic()
                    || method.getReturnType() == void.class) {
                continue; // not a property: a computed default method, a helper, toString() and the like
            }
            String name;
            if (method.isAnnotationPresent(WithParentName.class)) {
                name = prefix;
            } else {
                WithName withName = method.getAnnotation(WithName.class);
                String segment = withName != null ? withName.value() : kebab(method.getName());
                name = prefix.isEmpty() ? segment : prefix + "." + segment;
            }
            Optional<String> defaultValue = Optional.ofNullable(method.getAnnotation(WithDefault.class))
                    .map(WithDefault::value);
            member(name, method.getGenericReturnType(), defaultValue, out, path);
        }
        path.remove(path.size() - 1);
    }

    private static void member(String name, Type type, Optional<String> defaultValue,
            Map<String, Optional<String>> out, List<Class<?>> path) {
        Class<?> raw = raw(type);
        if (raw == Optional.class || Collection.class.isAssignableFrom(raw)) {
            Type element = argument(type, 0);
            if (element != null && isGroup(raw(element))) {
                // an optional group keeps the names of its members; a list of groups indexes them: name[*].member
                collect(raw == Optional.class ? name : name + "[*]", raw(element), out, path);
                return;
            }
            out.put(name, defaultValue);
            return;
        }
        if (Map.class.isAssignableFrom(raw)) {
            Type value = argument(type, 1);
            if (value != null && isGroup(raw(value))) {
                collect(name + ".*", raw(value), out, path);
            } else {
                out.put(name + ".*", defaultValue);
            }
            return;
        }
        if (isGroup(raw)) {
            collect(name, raw, out, path);
            return;
        }
        out.put(name, defaultValue); // a leaf: String, primitives, Duration, MemorySize, enums, OptionalInt, ...
    }

    /** A config group: an interface of the application's own (java.*, io.smallrye.* and io.quarkus.* are values). */
    private static boolean isGroup(Class<?> type) {
        return type.isInterface() && !type.isAnnotation() && !type.getName().startsWith("java.")
                && !type.getName().startsWith("io.smallrye.") && !type.getName().startsWith("io.quarkus.")
                && type != OptionalInt.class && type != OptionalLong.class && type != OptionalDouble.class;
    }

    private static Class<?> raw(Type type) {
        if (type instanceof Class<?> c) {
            return c;
        }
        if (type instanceof ParameterizedType p) {
            return (Class<?>) p.getRawType();
        }
        return Object.class; // a type variable or wildcard: treat as a leaf
    }

    private static Type argument(Type type, int index) {
        if (type instanceof ParameterizedType p && p.getActualTypeArguments().length > index) {
            return p.getActualTypeArguments()[index];
        }
        return null;
    }

    /** SmallRye Config's default naming: {@code maxQuantityPerRequest} → {@code max-quantity-per-request}. */
    static String kebab(String methodName) {
        return methodName.replaceAll("([a-z0-9])([A-Z])", "$1-$2").replaceAll("([A-Z])([A-Z][a-z])", "$1-$2")
                .toLowerCase(java.util.Locale.ROOT);
    }

    private static Path referenceFile() {
        Path here = REFERENCE;
        String basedir = System.getProperty("basedir");
        if (!Files.isRegularFile(here) && basedir != null) {
            here = Path.of(basedir).resolve(REFERENCE);
        }
        if (!Files.isRegularFile(here)) {
            fail("The configuration reference " + REFERENCE.toAbsolutePath() + " is missing; it documents every"
                    + " flashstock.* property of " + FlashstockConfig.class.getName());
        }
        return here;
    }
}
