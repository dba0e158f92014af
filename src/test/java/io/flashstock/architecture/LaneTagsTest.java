package io.flashstock.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.flashstock.testsupport.Lane;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * CI's step 4 hands surefire the classes tagged {@link Lane#ALONE_TAG} by name (pom.xml: {@code test.alone-classes},
 * the profile {@code alone-by-name}), because Quarkus builds an application for every {@code @QuarkusTest} class
 * JUnit loads, before the tag filter drops it. The name pattern must match exactly the tagged classes: a tagged class
 * it missed would run in neither of CI's steps (step 3 leaves out the tag), an untagged one it named would run twice.
 * A plain unit test over the compiled test classes: no Quarkus, no servers.
 */
class LaneTagsTest {

    /** Surefire's default includes: what it hands JUnit at all. */
    private static final Pattern TEST_CLASS = Pattern.compile("Test.*|.*Test|.*Tests|.*TestCase");

    @Test
    void theAloneClassesAreExactlyTheOnesTheirPatternNames() {
        String patterns = System.getProperty("test.alone-classes");
        assumeTrue(patterns != null, "run through Maven, which passes pom.xml's test.alone-classes");
        List<Pattern> named = Arrays.stream(patterns.split(",")).map(String::trim).map(LaneTagsTest::glob).toList();
        Set<String> tagged = new TreeSet<>();
        Set<String> matched = new TreeSet<>();
        for (Class<?> test : testClasses()) {
            if (tags(test).contains(Lane.ALONE_TAG)) {
                tagged.add(test.getSimpleName());
            }
            if (named.stream().anyMatch(p -> p.matcher(test.getSimpleName()).matches())) {
                matched.add(test.getSimpleName());
            }
        }
        assertFalse(tagged.isEmpty(), "the shard-loss classes are tagged " + Lane.ALONE_TAG);
        assertEquals(tagged, matched, "classes tagged " + Lane.ALONE_TAG + " against those test.alone-classes ("
                + patterns + ") names");
    }

    /** The concrete test classes surefire runs, loaded without initializing them. */
    private static List<Class<?>> testClasses() {
        ClassLoader loader = LaneTagsTest.class.getClassLoader();
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
                .importPackages("io.flashstock").stream()
                .filter(c -> c.isTopLevelClass() && TEST_CLASS.matcher(c.getSimpleName()).matches())
                .map(JavaClass::getName).<Class<?>>map(name -> {
                    try {
                        return Class.forName(name, false, loader);
                    } catch (ClassNotFoundException e) {
                        throw new IllegalStateException(e);
                    }
                })
                .filter(c -> !c.isInterface() && !Modifier.isAbstract(c.getModifiers()))
                .toList();
    }

    /** The JUnit tags of a class, its superclasses' and interfaces' included, as JUnit sees them. */
    private static Set<String> tags(Class<?> test) {
        Set<String> tags = new TreeSet<>();
        AnnotationSupport.findRepeatableAnnotations(test, Tag.class).forEach(tag -> tags.add(tag.value()));
        return tags;
    }

    /** A surefire class-name pattern ({@code *} and {@code ?} wildcards) as a regular expression. */
    private static Pattern glob(String pattern) {
        StringBuilder regex = new StringBuilder();
        for (char c : pattern.toCharArray()) {
            regex.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
        }
        return Pattern.compile(regex.toString());
    }
}
