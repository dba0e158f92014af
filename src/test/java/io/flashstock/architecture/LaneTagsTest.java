package io.flashstock.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.flashstock.testsupport.Lane;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Surefire is handed the classes of a tag by name as well (pom.xml, {@code test.excludes-file} and the profiles
 * {@code alone-by-name} and {@code alone-left-out-by-name}; {@code src/test/lanes/<tag>.txt}), because Quarkus builds
 * an application for every {@code @QuarkusTest} class JUnit loads, before JUnit's tag filter drops it. Each file must
 * name exactly the classes of its tag: a class tagged {@code alone} that {@code alone.txt} missed would run in
 * neither of CI's steps, one tagged {@code full} that {@code full.txt} missed would cost the gate its application
 * again, and a name without the tag would leave a gate class out. A plain unit test over the compiled test classes.
 */
class LaneTagsTest {

    /** Surefire's default includes: what it hands JUnit at all. */
    private static final Pattern TEST_CLASS = Pattern.compile("Test.*|.*Test|.*Tests|.*TestCase");
    /** A line of a lane file: one class, {@code **}{@code /Name.java}. */
    private static final Pattern LINE = Pattern.compile("\\*\\*/(\\w+)\\.java");

    @ParameterizedTest
    @ValueSource(strings = { Lane.FULL_TAG, Lane.ALONE_TAG })
    void eachLaneFileNamesExactlyTheClassesOfItsTag(String tag) throws IOException {
        Set<String> named = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of("src/test/lanes", tag + ".txt"))) {
            Matcher matcher = LINE.matcher(line.trim());
            assertTrue(matcher.matches(), tag + ".txt: not a line of the form **/Name.java: " + line);
            named.add(matcher.group(1));
        }
        Set<String> tagged = new TreeSet<>();
        for (Class<?> test : testClasses()) {
            if (tags(test).contains(tag)) {
                tagged.add(test.getSimpleName());
            }
        }
        assertFalse(tagged.isEmpty(), "no class is tagged " + tag);
        assertEquals(tagged, named, "the classes tagged " + tag + " against those src/test/lanes/" + tag + ".txt names");
    }

    /**
     * Every {@code @QuarkusTest} class names the resource that points its service at its fork's servers
     * ({@code LocalServersResource}, or a resource of servers of its own). Without one, the service of a class in
     * CI's second fork uses the first fork's database, which its Flyway clean at start empties under the classes
     * running there (seen: "Table 'flashstock_test.purchase_order' doesn't exist" in another class).
     */
    @Test
    void everyQuarkusTestNamesTheServersItRunsOn() {
        List<String> without = testClasses().stream()
                .filter(test -> AnnotationSupport.isAnnotated(test, QuarkusTest.class))
                .filter(test -> AnnotationSupport.findRepeatableAnnotations(test, WithTestResource.class).isEmpty())
                .map(Class::getSimpleName).toList();
        assertEquals(List.of(), without, "@QuarkusTest classes without a @WithTestResource");
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
}
