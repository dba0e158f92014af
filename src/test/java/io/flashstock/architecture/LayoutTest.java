package io.flashstock.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import java.util.Arrays;
import java.util.stream.Stream;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package layout (README, "Code layout"): imports point one way, from {@code config}/{@code error}/{@code support}
 * up through {@code db}, {@code redis}, {@code web}, {@code access}, {@code item}, {@code order} and {@code deduction} to the
 * strategies and the entry points. A plain unit test over the compiled classes: no Quarkus, no servers.
 */
class LayoutTest {

    private static final String ROOT = "io.flashstock";
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(ROOT);
    }

    @Test
    void packagesHaveNoCycles() {
        slices().matching(ROOT + ".(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void strategiesDoNotKnowEachOther() {
        for (String strategy : new String[] { "optimistic", "lock", "lua" }) {
            noClasses().that().resideInAPackage(ROOT + ".deduction." + strategy + "..")
                    .should().dependOnClassesThat(otherStrategyThan(strategy))
                    .because("each strategy is a plug-in of its own; what they share lives in deduction")
                    .check(classes);
        }
    }

    @Test
    void lowerLayersDoNotReachUp() {
        layer("config", "error", "support").mayUse().check(classes);
        layer("db").mayUse("config", "error", "support").check(classes);
        layer("redis").mayUse("config", "error", "support").check(classes);
        layer("web").mayUse("config", "error", "support", "db").check(classes);
        layer("access").mayUse("config", "error", "support", "web").check(classes);
        layer("item").mayUse("config", "error", "support", "db", "redis", "web", "access").check(classes);
        layer("order").mayUse("config", "error", "support", "db", "redis", "web", "access", "item").check(classes);
        layer("deduction").mayUse("config", "error", "support", "db", "redis", "web", "access", "item", "order")
                .check(classes);
    }

    /** Item's bulk updates are the one place that changes counters and bumps the version with them. */
    @Test
    void onlyItemUpdatesItems() {
        noClasses().that().doNotHaveFullyQualifiedName(ROOT + ".item.Item")
                .should().callMethodWhere(DescribedPredicate.describe("Item.update(..)",
                        call -> call.getTargetOwner().getFullName().equals(ROOT + ".item.Item")
                                && call.getName().equals("update")))
                .because("every change of an item's counters must bump its version (Item.changeCounters)")
                .check(classes);
    }

    private static DescribedPredicate<JavaClass> otherStrategyThan(String strategy) {
        return DescribedPredicate.describe("another strategy's package than " + strategy,
                c -> c.getPackageName().startsWith(ROOT + ".deduction.")
                        && !c.getPackageName().startsWith(ROOT + ".deduction." + strategy));
    }

    private static Layer layer(String... packages) {
        return new Layer(packages);
    }

    /** "Classes of these packages use nothing of io.flashstock outside themselves and the allowed packages." */
    private record Layer(String[] packages) {

        ArchRule mayUse(String... allowed) {
            String[] own = Arrays.stream(packages).map(p -> ROOT + "." + p + "..").toArray(String[]::new);
            String[] permitted = Stream.concat(Arrays.stream(packages),
                    Arrays.stream(allowed)).map(p -> ROOT + "." + p + "..").toArray(String[]::new);
            return noClasses().that().resideInAnyPackage(own)
                    .should().dependOnClassesThat(DescribedPredicate.describe(
                            "flashstock classes outside " + String.join(", ", permitted),
                            c -> c.getPackageName().startsWith(ROOT)
                                    && Arrays.stream(permitted).noneMatch(
                                            p -> c.getPackageName().startsWith(p.substring(0, p.length() - 2)))));
        }
    }
}
