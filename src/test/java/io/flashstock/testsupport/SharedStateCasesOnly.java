package io.flashstock.testsupport;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For the contract suites run against two packaged pods or a Redis Cluster ({@code DbOptimisticTwoInstancesIT},
 * {@code *ClusterIT}): skips the cases marked {@link OnePod}, which the in-process suite of the same strategy runs,
 * so that these slow suites spend their time on what two pods or a cluster can break.
 */
public class SharedStateCasesOnly implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        boolean onePod = context.getTestMethod().map(m -> m.isAnnotationPresent(OnePod.class)).orElse(false);
        return onePod
                ? ConditionEvaluationResult.disabled("one pod's edge only: the in-process suite runs it")
                : ConditionEvaluationResult.enabled("asks shared state");
    }
}
