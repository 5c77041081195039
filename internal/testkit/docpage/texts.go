package docpage

// text is what one language's pages say.
type text struct {
	title, chapter, manualTitle, window string
	paragraphs                          []string
	address                             []string
	greeting, closing, signature        string
	steps                               []string
	menu, fields, buttons               []string
	sign                                []string
	signNote                            string
}

var texts = map[string]text{
	"en": {
		title:   "Notice to Residents",
		chapter: "Chapter One",
		paragraphs: []string{
			"The water supply to the building will be interrupted on Tuesday morning while the old pipes in the basement are replaced. We expect the work to take about four hours.",
			"Please fill a few bottles the evening before and keep the taps closed until the plumbers have finished. If you have any questions, the caretaker will be in the office all day.",
			"We are sorry for the trouble and thank you for your patience while the repairs are made. The new pipes should give everyone better pressure and cleaner water for many years.",
			"It was late in the evening when the train finally stopped at the little station, and nobody was waiting on the platform except an old dog that watched the doors open.",
		},
		address:     []string{"14 Harbour Street", "Bristol", "3 March 2024"},
		greeting:    "Dear Mrs Thompson,",
		closing:     "Yours sincerely,",
		signature:   "Daniel Morgan",
		manualTitle: "Setting up your printer",
		steps: []string{
			"Remove the printer from the box and take off all of the orange tape.",
			"Connect the power cable and press the button on the front panel.",
			"Open the front cover and insert the ink cartridges until they click.",
			"Load plain paper into the tray and wait for the light to turn green.",
			"Install the software from the website and follow the instructions on the screen.",
		},
		window:   "Account settings",
		menu:     []string{"File", "Edit", "View", "Window", "Help"},
		fields:   []string{"First name", "Last name", "Email address", "Phone number"},
		buttons:  []string{"Save changes", "Cancel"},
		sign:     []string{"Please knock", "before entering"},
		signNote: "The office is open from nine in the morning until five in the afternoon.",
	},
	"es": {
		title:   "Aviso a los vecinos",
		chapter: "Capítulo primero",
		paragraphs: []string{
			"El suministro de agua del edificio se cortará el martes por la mañana mientras se cambian las tuberías viejas del sótano. Esperamos que el trabajo dure unas cuatro horas.",
			"Por favor, llenen algunas botellas la noche anterior y mantengan los grifos cerrados hasta que los fontaneros hayan terminado. Si tienen alguna pregunta, el portero estará en la oficina todo el día.",
			"Sentimos las molestias y les agradecemos su paciencia durante las reparaciones. Las nuevas tuberías darán a todos más presión y un agua más limpia durante muchos años.",
			"Era tarde cuando el tren se detuvo por fin en la pequeña estación, y nadie esperaba en el andén excepto un perro viejo que miraba cómo se abrían las puertas.",
		},
		address:     []string{"Calle del Puerto 14", "Valencia", "3 de marzo de 2024"},
		greeting:    "Estimada señora García:",
		closing:     "Atentamente,",
		signature:   "Daniel Moreno",
		manualTitle: "Cómo instalar su impresora",
		steps: []string{
			"Saque la impresora de la caja y quite toda la cinta de color naranja.",
			"Conecte el cable de alimentación y pulse el botón del panel frontal.",
			"Abra la tapa delantera e inserte los cartuchos de tinta hasta que encajen.",
			"Coloque papel normal en la bandeja y espere a que la luz se ponga verde.",
			"Instale el programa desde la página web y siga las instrucciones de la pantalla.",
		},
		window:   "Configuración de la cuenta",
		menu:     []string{"Archivo", "Editar", "Ver", "Ventana", "Ayuda"},
		fields:   []string{"Nombre", "Apellidos", "Correo electrónico", "Teléfono"},
		buttons:  []string{"Guardar cambios", "Cancelar"},
		sign:     []string{"Por favor, llame", "antes de entrar"},
		signNote: "La oficina está abierta desde las nueve de la mañana hasta las cinco de la tarde.",
	},
}
