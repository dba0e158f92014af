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
 * up through {@code db}, {@code redis}, {@code web}, {@code access}, {@code item}, {@code order} and
 * {@code deduction} (and {@code events}, beside {@code deduction}, which the purchase path never uses) to the
 * strategies and the entry points ({@code purchase}, {@code health}, {@code report}, {@code salepage}), which nothing
 * imports. {@code devservices}
 * (embedded servers and tokens for dev mode and tests) stands aside: nothing imports it either. A plain unit test over
 * the compiled classes: no Quarkus, no servers.
 */
class LayoutTest {

    private static final String ROOT = "io.flashstock";
    private static final String[] ENTRY_POINTS = { "purchase", "health", "report", "salepage" };
    private static final String[] STRATEGIES = { ROOT + ".deduction.optimistic..", ROOT + ".deduction.lock..",
            ROOT + ".deduction.lua.." };
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
        layer("events").mayUse("config", "error", "support", "db", "redis", "item", "order").check(classes);
    }

    /**
     * {@code events} (the Kafka producer and the outbox publisher) reads what the sale wrote; the sale never
     * waits for it: neither the purchase endpoints nor the strategies may call it (issue 34, "purchases do not touch
     * Kafka"). The layer rules already keep every lower package away from it.
     */
    @Test
    void purchasesDoNotTouchEvents() {
        noClasses().that().resideInAnyPackage(ROOT + ".purchase..", ROOT + ".deduction..")
                .should().dependOnClassesThat().resideInAPackage(ROOT + ".events..")
                .because("a purchase never waits for Kafka; events go out through the outbox")
                .check(classes);
    }

    /**
     * {@code purchase} (the purchase and cart endpoints) and {@code health} (the probes) sit on top: they may use every
     * layer, but no strategy's own package (they reach the strategy through {@code deduction}: ActiveStrategy,
     * DeductionStrategy, and the StockMirror it chose), and nothing uses them, nor they each other.
     */
    @Test
    void entryPointsSitOnTop() {
        String[] below = { "config", "error", "support", "db", "redis", "web", "access", "item", "order", "deduction",
                "events" };
        for (String entry : ENTRY_POINTS) {
            layer(entry).mayUse(below).check(classes);
            noClasses().that().resideInAPackage(ROOT + "." + entry + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(STRATEGIES)
                    .because("a strategy is chosen once, in deduction; an entry point asks deduction, not a strategy")
                    .check(classes);
            noClasses().that().resideOutsideOfPackage(ROOT + "." + entry + "..")
                    .should().dependOnClassesThat().resideInAPackage(ROOT + "." + entry + "..")
                    .because("entry points are the top of the layout: the code below must not depend on them")
                    .check(classes);
        }
    }

    /** Dev-mode and test helpers: the application must not need them (their libraries are not in the package). */
    @Test
    void nothingImportsDevServices() {
        noClasses().that().resideOutsideOfPackage(ROOT + ".devservices..")
                .should().dependOnClassesThat().resideInAPackage(ROOT + ".devservices..")
                .because("devservices is reached only through its config source factories (META-INF/services), and "
                        + "only in dev mode and tests")
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
