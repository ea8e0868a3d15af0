# GoogleTest filters of the runs that take a part of a binary's cases, in one place: sourced by
# scripts/run-tests.sh (the sanitized run) and tests/avx2_table/run.sh (the whole-model checks
# again on the avx2 kernel table). Each prints a --gtest_filter value; "*" runs every case.

# The whole-model tests (model_reference_forward_test, model_batch_invariance_test) run every
# architecture for every weight type. Each architecture's forward pass with one float and one
# quantised type, and llama's with every type, reach every model and kernel path (kernels_test
# and kernels_matmul_test run every kernel of every table the CPU has); the Release run keeps the
# whole grid for the bits. The architecture variants that add no code path to their
# architecture's f16 and q4_K cases (another routing, another rope's numbers, more layers) are
# left out too, and so is the hybrid layers' batch-invariance case (the engine's
# sanitized exactness suite runs a hybrid model, kernels_test the delta rule on every table); the
# variants that reach a path of their own (DeepSeek's two latent-map forms, Phi-3's LongRoPE
# switch, fused q/k/v, rope frequency factors, ...) stay. So do the M-RoPE sections' own path
# (PairsOfAFourthSectionDoNotTurn); Granite's, Cohere's, Ling's, Gemma 4's and the vision-language
# models' other variants only change numbers on paths their f16 and q4_K cases reach. Granite 4.0-H's
# eight layers in chunks of 7 (9 s sanitized) carry the recurrent state across chunks by the code its
# f16 case runs in one batch and token by token.
model_grid_filter() {
  local v
  printf 'ReferenceForwardVariantsTest.*:BatchInvarianceKvTypeTest.*:*/llama_*:*_f16:*_q4_K-'
  for v in Llama4NopeLayers Glm4MoeSigmoidRouting MiniMaxM2WholeRow GptOssYarnSinks Ernie45SoftmaxRouting \
    DeepSeek2QuantizedLatentMaps DeepSeek2GroupLimitedRouting Gemma3SlidingAndGlobal Gemma2SoftcapsAndWindow \
    Qwen35 HoldsForHybridLayers GraniteMultipliersAgree TextGivesTheBaseArchitecturesBits \
    VisionLanguageArchsAgree BailingMoe2GroupRouting Cohere2LayerNorms Gemma4HeadsOfTwoShapes \
    Gemma4ExpertsBesideTheDense Gemma4PerLayerInputsAndSharedKv GraniteHybridEightLayersAgreeInChunks; do
    printf '*.%s*:' "$v"
  done
  echo
}

# The filter of a whole-model binary (a path or a name) rerun on the avx2 table
# (tests/avx2_table/run.sh): the model grid where there is one, every case of the others
# (model_quant_types_test's low-bit types).
avx2_table_filter() {
  case "$(basename "$1")" in
    model_reference_forward_test | model_batch_invariance_test) model_grid_filter ;;
    *) echo '*' ;;
  esac
}

# "*-" and a pattern for each model a Models/ suite of binary $1 runs that is not one of $2 (an
# extended regex of the models' names: the parameter after the last '/').
engine_models_left_out() {
  local models
  models=$("$1" --gtest_list_tests | sed -n 's|^  [A-Za-z]*/\([A-Za-z0-9_]*\).*|\1|p' | sort -u |
    grep -Evx "$2" | sed 's|^|Models/*/|' | paste -sd: -)
  echo "*-${models}"
}

# The filter of a GoogleTest binary (a path or a name) in the sanitized run.
sanitized_filter() {
  case "$(basename "$1")" in
    model_reference_forward_test | model_batch_invariance_test) model_grid_filter ;;
    # The engine's exactness suite runs its whole grid of models in Release; under the sanitizers
    # it runs on stories260K, a tiny MoE file and a dense hybrid (Qwen3.5's recurrent state
    # beside the K/V), which reach every path of the engine's own code (the other models differ
    # in the model, whose tests above run sanitized); the sliding-window suite on Gemma 3 (the
    # window pool beside full layers) and Gemma 4 (layers reading an earlier layer's K/V): the
    # other patterns run the same pool code with other numbers. A list of models to keep, not to
    # leave out, so a model added to either suite stays out of this run by itself: the ones left
    # out cost 63% of the binary's time (session 46: 14.7 of 23.1 s in Release, ~80 s sanitized).
    engine_test) engine_models_left_out "$1" 'stories260K|tiny_qwen3moe|qwen35_q8_0|Gemma3|Gemma4' ;;
    # mkmodel's other-arch-plus-keys files (8 of them at -O0): generation and loading run in the
    # other cases, these archs' parts in the model tests.
    mkmodel_load_test) echo '*-MkmodelLoadTest.ArchsOfAnotherArchsLayersLoadWithTheirOwnParts' ;;
    # Hyper-parameter reading and preset arithmetic: their largest cases write or plan big MoE
    # shapes at -O0 (8-9 s each sanitized) through code the other cases reach.
    model_load_test) echo '*-ModelLoadTest.ReadsGlm4MoeHparams:ModelLoadTest.ReadsDeepSeek2Hparams' ;;
    modelgen_test)
      echo '*-ModelGeneratorTest.LatticeIQuantsAreWrittenAndDecodeNearTheF32Weights:'`
        `'Qwen35PresetTest.LayersKeepTheIntervalAndACutWithoutAttentionIsRefused:'`
        `'Deepseek2PresetTest.LayersCutKeepsAnMoeLayer:Qwen35PresetTest.DensePresetsHaveTheRealModelsShapes' ;;
    # The template engine's step and size budgets: EndlessWorkFailsOnTheStepBudget and
    # HugeValuesAreRefusedBeforeTheyAreBuilt reach both; these two spend 14 s sanitized doing
    # the work a budget stops.
    chat_test) echo '*-JinjaErrors.ExplodingOutputFailsCleanly:JinjaErrors.WorkOnLargeValuesCountsAgainstTheStepBudget' ;;
    # `strata tokenize` over the vocabularies' whole test vectors (18 s sanitized): the command's
    # paths run in its other cases, the tokenizers over those vectors in tokenizer_test.
    tokenize_command_test) echo '*-*IdsMatchTheVectors' ;;
    # The token masker against the reference walk on Qwen3's 151k tokens (9 s sanitized): the
    # synthetic vocabulary's case runs the same code.
    grammar_test) echo '*-TokenMaskerExactness.EqualsTheReferenceWalkOnQwen3sVocabulary' ;;
    # The tile-rows-alone check on the largest attention shape (6 of the binary's 24 s sanitized):
    # it calls the same tile code once per row, which the other shapes' cases and that shape's
    # oracle cases run.
    kernels_test) echo '*-*EveryRowOfATileGetsItsSoloBytes/f16_t515_*' ;;
    *) echo '*' ;;
  esac
}
