"""Each chat model is sent the output cap and temperature it accepts."""

from __future__ import annotations

import pytest

from chalicelib.llm.domain.chat_parameters import ChatParameters, parameters_for


@pytest.mark.parametrize("model", ["o1", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5.1",
                                   "openai/gpt-5-nano", "o3-2025-04-16"])
def test_reasoning_models_get_max_completion_tokens_and_no_temperature(model: str) -> None:
    assert parameters_for(model).options(800, 0.2) == {"max_completion_tokens": 800}


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4.1", "llama3.1:8b", "mistral-small",
                                   "gpt-4o-2024-08-06", "omni-moderation"])
def test_other_models_get_max_tokens_and_the_temperature(model: str) -> None:
    assert parameters_for(model).options(800, 0.2) == {"max_tokens": 800, "temperature": 0.2}


def test_a_400_naming_a_parameter_switches_to_the_form_the_model_takes_once() -> None:
    classic = ChatParameters()
    no_temperature = classic.adapted("temperature")
    assert no_temperature is not None and no_temperature.options(5, 0.7) == {"max_tokens": 5}
    completion_cap = classic.adapted("max_tokens")
    assert completion_cap is not None and completion_cap.options(5, 0.7) == {"max_completion_tokens": 5,
                                                                            "temperature": 0.7}
    assert completion_cap.adapted("max_tokens") is None  # nothing left to change: the call fails
    assert classic.adapted("messages") is None and classic.adapted(None) is None
